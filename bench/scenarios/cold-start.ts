// Row 3: cold start. The first call into a plugin that is not loaded yet, in a running sandbox
// (as in a host, where plugins load on their first call): isolate, compile, context, call. With a V8 code cache (second load of the same bundle) and without, for ~50 KB
// and ~500 KB of plugin code on top of the SDK runtime. Baseline: spawning an MCP stdio server
// process with the same bundle and making its first call.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createInProcessSandbox } from "../../host/src/isolation/sandbox/index.ts";
import { startStdioToolServer } from "../lib/baselines.ts";
import { buildBenchPlugin } from "../lib/plugin.ts";
import type { Row } from "../lib/report.ts";
import { benchCall, noBridge, sandboxPluginOf } from "../lib/sandbox-plugin.ts";
import { summarize } from "../lib/stats.ts";

async function firstCallMs(
  sizeKb: number,
  iterations: number,
  cached: boolean,
): Promise<{ samples: number[]; bundleKb: number }> {
  const plugin = await buildBenchPlugin(`cold${sizeKb}`, "1.0.0", sizeKb);
  const dir = mkdtempSync(join(tmpdir(), "airlock-bench-cache-"));
  const samples: number[] = [];
  // one running sandbox, as in a host: each iteration loads the plugin under a key not loaded
  // before (a new runtime and isolate, its cache read from disk), calls it, and unloads it
  const sandbox = createInProcessSandbox();
  try {
    for (let i = 0; i < iterations; i++) {
      const cachePath = cached ? join(dir, "shared.cache") : join(dir, `cold-${i}.cache`);
      if (cached && i === 0) {
        // Prime the cache with one load that is not measured.
        const primer = createInProcessSandbox();
        await primer.load(sandboxPluginOf(plugin, "prime@1.0.0", cachePath));
        await primer.call(benchCall("prime@1.0.0", "echo", { text: "x" }), noBridge);
        await primer.close();
      }
      // 1 ms between loads: the sandbox's background work after the previous one (its spare
      // isolate) is done, as between two first calls in a host, and the CPU is not left idle
      // long enough to measure its wake-up instead (bench row 1f)
      await sleep(1);
      const key = `cold${sizeKb}-${i}@1.0.0`;
      const t0 = process.hrtime.bigint();
      await sandbox.load(sandboxPluginOf(plugin, key, cachePath));
      await sandbox.call(benchCall(key, "echo", { text: "x" }), noBridge);
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await sandbox.unload(key);
    }
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { samples, bundleKb: Math.round(plugin.bundleSize / 1024) };
}

async function stdioSpawnMs(sizeKb: number, iterations: number): Promise<number[]> {
  const plugin = await buildBenchPlugin(`cold${sizeKb}`, "1.0.0", sizeKb);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    const server = await startStdioToolServer(plugin.bundlePath);
    await server.call("echo", { text: "x" });
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await server.close();
  }
  return samples;
}

export async function coldStart(quick: boolean): Promise<Row[]> {
  const n = quick ? 2 : 15;
  const rows: Row[] = [];
  for (const [sizeKb, cachedTarget, uncachedTarget] of [
    [50, 8, 40],
    [500, 8, 40],
  ] as const) {
    const spawn = summarize(await stdioSpawnMs(sizeKb, quick ? 1 : 5));
    for (const cached of [true, false]) {
      const { samples, bundleKb } = await firstCallMs(sizeKb, n, cached);
      const s = summarize(samples);
      const target = cached ? cachedTarget : uncachedTarget;
      rows.push({
        id: "3",
        what: `cold start, +${sizeKb} KB plugin code (bundle ${bundleKb} KB), ${cached ? "code cache" : "no cache"}`,
        unit: "ms",
        p50: s.p50,
        p90: s.p90,
        baseline: { what: "spawn MCP stdio server + first call", p50: spawn.p50 },
        ratio: s.p50 / spawn.p50,
        target: `≤ ${target} ms${sizeKb === 50 ? " (target set for 500 KB)" : ""}`,
        met: s.p50 <= target,
      });
    }
  }
  return rows;
}
