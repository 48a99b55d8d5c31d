// A real host for the benchmarks: SQLite (or PostgreSQL) store in a temp dir, the sandbox in
// the chosen mode, the bench plugin (and any more a row asks for) installed signed through the
// real lifecycle (integrity and signature checked), an agent with every tool enabled and
// auto-approval on.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPair, integrityOf, signIntegrity } from "@airlock/sdk/signing";
import type { HostOptions } from "../../host/src/config.ts";
import type { AirlockHost, Run } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import type { BenchPlugin } from "./plugin.ts";

export interface BenchHost {
  host: AirlockHost;
  run: Run;
  dataDir: string;
  close(): Promise<void>;
}

export async function startBenchHost(
  plugin: BenchPlugin,
  options: {
    mode: "workers" | "in-process";
    store?: HostOptions["store"];
    workers?: number;
    limits?: HostOptions["limits"];
    /** More plugins installed the same way, their tools enabled for the same agent. */
    more?: BenchPlugin[];
  },
): Promise<BenchHost> {
  const dataDir = mkdtempSync(join(tmpdir(), "airlock-bench-host-"));
  const keys = generateKeyPair();
  const host = await createHost({
    dataDir,
    sandbox: {
      mode: options.mode,
      ...(options.workers === undefined ? {} : { workers: options.workers }),
      // AIRLOCK_BENCH_WAKE_SPIN_MS: an A/B knob for the early wake (HostOptions.sandbox.wakeSpinMs)
      ...(process.env.AIRLOCK_BENCH_WAKE_SPIN_MS === undefined
        ? {}
        : { wakeSpinMs: Number(process.env.AIRLOCK_BENCH_WAKE_SPIN_MS) }),
    },
    trust: { keys: [keys.publicKeyPem] },
    autoApprove: true,
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  try {
    const plugins = [plugin, ...(options.more ?? [])];
    for (const p of plugins) {
      const signature = signIntegrity(integrityOf(p.tarball), keys.privateKeyPem);
      await host.plugins.installTarball(p.tarball, `file:${p.tarballPath}`, { signatures: [signature] });
    }
    await host.createAgent("bench");
    await host.setToolsEnabled(
      "bench",
      Object.fromEntries(
        plugins.flatMap((p) => p.manifest.tools.map((t) => [`${p.manifest.namespace}:${t.name}`, true])),
      ),
    );
    const run = await host.startRun({ agent: "bench", conversationId: "c1", autoApprove: true });
    return {
      host,
      run,
      dataDir,
      async close() {
        await host.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
