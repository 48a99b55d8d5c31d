// Test support (imported by tests only): a real host — its store in a temp dir (or PostgreSQL: test-store.ts), in-process
// sandbox, real bridge and capabilities — with fixture plugins recorded before it starts.
// Internal errors the host reports are collected so a test can assert on them. The host keeps no
// store in its public object: a test that reads or writes rows directly opens the store's data
// dir a second time (`store()`, as another process would), closed with the host.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostOptions } from "../../config.ts";
import type { AirlockHost } from "../../contracts/host.ts";
import { createHost } from "../../host.ts";
import { openStore } from "../../state/store/index.ts";
import { testStore } from "../../state/store/test-store.ts";
import type { Store } from "../../state/store/types.ts";
import { type FixturePlugin, installFixture } from "./test-fixtures.ts";

export interface TestHost {
  host: AirlockHost;
  dir: string;
  internalErrors: Array<{ what: string; error: unknown }>;
  /** A second handle on the host's store (opened on first use, closed by close()). */
  store(): Promise<Store>;
  /** Records another fixture in the store (as another replica's installer would). */
  install(plugin: FixturePlugin): Promise<void>;
  close(): Promise<void>;
}

export async function openTestHost(plugins: FixturePlugin[], options: HostOptions = {}): Promise<TestHost> {
  const dir = await mkdtemp(join(tmpdir(), "airlock-host-"));
  const seed = await openStore(testStore(dir));
  for (const plugin of plugins) await installFixture(seed, join(dir, "plugins"), plugin);
  await seed.close();
  const internalErrors: TestHost["internalErrors"] = [];
  const host = await createHost({
    dataDir: dir,
    store: testStore(dir),
    sandbox: { mode: "in-process" },
    masterKey: randomBytes(32).toString("base64"),
    onInternalError: (what, error) => internalErrors.push({ what, error }),
    ...options,
  });
  let second: Promise<Store> | undefined;
  const store = () => {
    second ??= openStore(testStore(dir));
    return second;
  };
  return {
    host,
    dir,
    internalErrors,
    store,
    install: async (plugin) => {
      await installFixture(await store(), join(dir, "plugins"), plugin);
    },
    close: async () => {
      await host.close();
      await (await second)?.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
