// A real host with first-party plugins installed (built, packed and signed with the SDK, installed
// through the real lifecycle) and an agent with their tools enabled: what the code-mode suites
// and the code-mode benchmark run against.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostOptions } from "../../host/src/config.ts";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { testStore } from "../../host/src/state/store/test-store.ts";
import { listFirstPartyPlugins } from "../../host/src/surfaces/cli/bootstrap/first-party.ts";
import { packFirstParty } from "../../host/src/surfaces/cli/bootstrap/package-cache.ts";
import { loadOrCreateSigningKey } from "../../host/src/surfaces/cli/bootstrap/signing-key.ts";

export interface CodeModeHost {
  host: AirlockHost;
  dir: string;
  close(): Promise<void>;
}

export async function startCodeModeHost(options: {
  mode: "workers" | "in-process";
  plugins: string[];
  agents: string[];
  host?: Partial<HostOptions>;
}): Promise<CodeModeHost> {
  const dir = await mkdtemp(join(tmpdir(), "airlock-code-mode-"));
  const key = await loadOrCreateSigningKey(join(dir, "key"));
  const host = await createHost({
    dataDir: join(dir, "data"),
    store: testStore(join(dir, "data")),
    sandbox: { mode: options.mode, ...(options.mode === "workers" ? { workers: 1 } : {}) },
    trust: { keys: [key.publicKeyPem] },
    ...options.host,
  });
  try {
    const all = await listFirstPartyPlugins();
    const ids: string[] = [];
    for (const name of options.plugins) {
      const plugin = all.find((p) => p.name === name);
      if (plugin === undefined) throw new Error(`no first-party plugin ${name}`);
      const packed = await packFirstParty(plugin, key, join(dir, "cache"));
      await host.plugins.installTarball(packed.tarball, `file:${name}.tgz`, {
        signatures: [packed.signature],
      });
      for (const t of packed.manifest.tools) if (t.harness === null) ids.push(`${name}:${t.name}`);
    }
    for (const agent of options.agents) {
      await host.createAgent(agent);
      await host.setKnowledgeLevel(agent, "write");
      await host.setToolsEnabled(agent, Object.fromEntries(ids.map((id) => [id, true])));
    }
  } catch (error) {
    await host.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    host,
    dir,
    async close() {
      await host.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
