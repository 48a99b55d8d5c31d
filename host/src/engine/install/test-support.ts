// Shared set-up for the lifecycle tests: a real SQLite store in a temp data dir, a trusted
// key, and signed sample tarballs on disk (with the `<file>.sig` sidecar the installer reads).
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { type SamplePluginOptions, samplePluginTarball, sha512Integrity } from "@airlock/sdk/package";
import { generateKeyPair, type KeyPair, signIntegrity } from "@airlock/sdk/signing";
import { openStore } from "../../state/store/index.ts";
import type { Store } from "../../state/store/types.ts";
import type { PluginLifecycleOptions } from "./context.ts";
import { createPluginLifecycle, type ManagedPluginLifecycle } from "./lifecycle.ts";

export interface Fixture {
  dir: string;
  dataDir: string;
  store: Store;
  key: KeyPair;
  lifecycle: ManagedPluginLifecycle;
  make(options?: Partial<PluginLifecycleOptions>): ManagedPluginLifecycle;
  /** Writes `<name>.tgz` (+ `.sig` signed by `signer`, default the trusted key; null: unsigned). */
  tarball(options: SamplePluginOptions & { signer?: KeyPair | null; file?: string }): {
    path: string;
    bytes: Uint8Array;
  };
  close(): Promise<void>;
}

export async function fixture(options: Partial<PluginLifecycleOptions> = {}): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), "airlock-install-"));
  const dataDir = join(dir, "data");
  const store = await openStore({ kind: "sqlite", dataDir });
  const key = generateKeyPair();
  const make = (extra: Partial<PluginLifecycleOptions> = {}): ManagedPluginLifecycle =>
    createPluginLifecycle({
      store,
      dataDir,
      trust: { keys: [key.publicKeyPem] },
      hostVersion: "0.1.0",
      supportedSdk: "^1.0.0",
      ...options,
      ...extra,
    });
  return {
    dir,
    dataDir,
    store,
    key,
    lifecycle: make(),
    make,
    tarball(o) {
      const bytes = samplePluginTarball(o);
      const path = join(dir, o.file ?? `${o.namespace}-${o.version}.tgz`);
      writeFileSync(path, bytes);
      const signer = o.signer === undefined ? key : o.signer;
      if (signer !== null)
        writeFileSync(
          `${path}.sig`,
          JSON.stringify(signIntegrity(sha512Integrity(bytes), signer.privateKeyPem)),
        );
      return { path, bytes };
    },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every file and directory under `root`, relative, sorted (to assert what is on disk). */
export function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") return;
      throw err;
    }
    for (const n of names) {
      const p = join(d, n);
      out.push(relative(root, p));
      if (statSync(p).isDirectory()) walk(p);
    }
  };
  walk(root);
  return out.sort();
}
