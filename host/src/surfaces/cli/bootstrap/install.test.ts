// installFirstParty against a real host (in-process sandbox, SQLite) and the real registry
// child: first run installs what the plugins root holds and sets up the example agent; a second
// run keeps everything; a bumped version is published and upgraded to, with the agent's
// enablement kept.
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AirlockHost } from "../../../contracts/host.ts";
import { createHost } from "../../../host.ts";
import { ensureExampleAgent } from "./example-agent.ts";
import { FIRST_PARTY_DIR } from "./first-party.ts";
import { installFirstParty } from "./index.ts";
import { type LocalRegistry, startLocalRegistry } from "./registry-process.ts";
import { type BootstrapKey, loadOrCreateSigningKey } from "./signing-key.ts";

describe("installFirstParty", () => {
  let dir: string;
  let root: string;
  let key: BootstrapKey;
  let registry: LocalRegistry;
  let host: AirlockHost;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-first-party-"));
    root = join(dir, "plugins");
    for (const name of ["notes", "room"]) {
      await cp(join(FIRST_PARTY_DIR, name), join(root, name), {
        recursive: true,
        filter: (src) => !/[/\\](dist|node_modules)$/.test(src),
      });
    }
    key = await loadOrCreateSigningKey(join(dir, "bootstrap"));
    registry = await startLocalRegistry({ dir: join(dir, "bootstrap"), owner: "airlock" });
    host = await createHost({
      dataDir: join(dir, "data"),
      sandbox: { mode: "in-process" },
      registryUrl: registry.url,
      trust: { keys: [key.publicKeyPem] },
    });
  });
  afterAll(async () => {
    await host?.close();
    await registry?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    "installs signed plugins from the local registry and sets up the example agent",
    { timeout: 120_000 },
    async () => {
      const outcomes = await installFirstParty(host, registry, key, join(dir, "bootstrap"), root);
      expect(outcomes.map((o) => [o.name, o.action, o.published])).toEqual([
        ["notes", "installed", true],
        ["room", "installed", true],
      ]);
      expect((await host.plugins.list()).map((p) => p.signer)).toEqual([key.keyId, key.keyId]);
      const agent = await ensureExampleAgent(host);
      expect(agent.created).toBe(true);
      const tools = await host.listAgentTools("example");
      expect(tools.filter((t) => t.served).map((t) => t.id)).toContain("notes:writeNote");
      expect((await host.getAgent("example"))?.knowledgeLevel).toBe("write");
    },
  );

  it("keeps everything on a second run, from the build cache", { timeout: 120_000 }, async () => {
    const outcomes = await installFirstParty(host, registry, key, join(dir, "bootstrap"), root);
    expect(outcomes.map((o) => [o.action, o.built, o.published])).toEqual([
      ["kept", false, false],
      ["kept", false, false],
    ]);
    expect((await ensureExampleAgent(host)).created).toBe(false);
  });

  it("upgrades to a bumped version and keeps the agent's enablement", { timeout: 120_000 }, async () => {
    const pkgFile = join(root, "notes/package.json");
    await writeFile(pkgFile, (await readFile(pkgFile, "utf8")).replace('"1.0.0"', '"1.1.0"'));
    const entry = join(root, "notes/src/index.ts");
    await writeFile(entry, (await readFile(entry, "utf8")).replace('version: "1.0.0"', 'version: "1.1.0"'));
    const outcomes = await installFirstParty(host, registry, key, join(dir, "bootstrap"), root);
    expect(outcomes.find((o) => o.name === "notes")).toMatchObject({
      action: "upgraded",
      version: "1.1.0",
      built: true,
    });
    const notes = (await host.plugins.list()).find((p) => p.namespace === "notes");
    expect(notes).toMatchObject({ active: "1.1.0", previous: "1.0.0" });
    const enabled = (await host.listAgentTools("example")).filter((t) => t.enabled).map((t) => t.id);
    expect(enabled).toContain("notes:writeNote");
  });
});
