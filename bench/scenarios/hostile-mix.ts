// Row 10, the hostile mix: TOTAL tool calls across 4 plugins in the workers sandbox (default
// sandbox options), 16 in flight, 10 % of them hostile (two plugins: a CPU burn to the cpuMs
// limit, memory growth to the memory limit, a capability-call flood, a ctx.log/progress flood,
// state quota abuse, a huge result), the rest good calls of the other two plugins (an echo, a
// small state write and read back). Baseline: the same good calls, in the same order and at the
// same concurrency, on a host without the hostile plugins. Every good call is checked for its
// answer (not only for no error): a good call lost or wrong must be 0; target good p99 ≤ 1.5×
// the baseline's. Meanwhile the row samples how many hostile calls are in flight, and the host's
// and its workers' CPU, for the note on the CPU share a plugin would need.
// Both hosts get the operator limits LIMITS: concurrency 16 (as many as the callers, so a good
// plugin's own queue is not what is measured, as row 5), and cpuMs 250 so the ≈ 170 CPU burns of
// a full run hold the cores for ≈ 40 s, not the 5.5 min the default 2,000 ms would (good calls
// use ≈ 1 ms of CPU); the memory limit is the default. At 250 ms a flood of 60,000 unawaited
// calls is often ended by the CPU limit before the capability-call cap: the note counts each
// hostile call's outcome.
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { type BenchHost, startBenchHost } from "../lib/bench-host.ts";
import { buildBenchPlugin } from "../lib/plugin.ts";
import type { Row } from "../lib/report.ts";

const TOTAL = 10_000;
const QUICK_TOTAL = 200;
const HOSTILE_SHARE = 0.1;
const IN_FLIGHT = 16;
const WARM = 2_000;
const LIMITS = { concurrency: IN_FLIGHT, cpuMs: 250 };
const TARGET_RATIO = 1.5;
const GOOD = ["mixgooda", "mixgoodb"];
const HOSTILE = ["mixhostilea", "mixhostileb"];
const KINDS = ["burn", "grow", "capflood", "logflood", "quota", "huge"] as const;
/** Kinds that hold a CPU for as long as they run (the others wait on the host most of the time). */
const CPU_KINDS = new Set<string>(["burn", "grow"]);

const GOOD_SOURCE = `
import { definePlugin, defineTool } from "@airlock/sdk";
import { z } from "zod";

export default definePlugin({
  namespace: "__NS__",
  version: "__VERSION__",
  engine: ">=0.1.0",
  description: "Well-behaved tools for the hostile-mix benchmark.",
  tools: [
    defineTool({
      name: "echo",
      description: "Returns its input text.",
      category: "bench",
      annotations: { readOnlyHint: true },
      parameters: z.object({ text: z.string().describe("Text to return.") }),
      execute: async (input) => input.text,
    }),
    defineTool({
      name: "keep",
      description: "Writes a value to a state key, reads it back and returns what it read.",
      category: "bench",
      annotations: { readOnlyHint: true },
      parameters: z.object({ key: z.string().describe("State key."), value: z.string().describe("Value.") }),
      execute: async (input, ctx) => {
        await ctx.state.set(input.key, input.value);
        return String(await ctx.state.get(input.key));
      },
    }),
  ],
});
`;

const hostileTool = (name: string, description: string, body: string): string => `
    defineTool({
      name: "${name}",
      description: "${description}",
      category: "bench",
      annotations: { readOnlyHint: true },
      parameters: z.object({ x: z.number().nullable().describe("Unused.") }),
      execute: async (input, ctx) => { ${body} },
    }),`;

const HOSTILE_SOURCE = `
import { definePlugin, defineTool } from "@airlock/sdk";
import { z } from "zod";

export default definePlugin({
  namespace: "__NS__",
  version: "__VERSION__",
  engine: ">=0.1.0",
  description: "Hostile tools for the hostile-mix benchmark.",
  tools: [${[
    hostileTool("burn", "Burns CPU until the CPU limit ends it.", "for (;;) {}"),
    hostileTool(
      "grow",
      "Grows its heap until the memory limit ends it.",
      "const keep = []; for (;;) keep.push(new Array(4096).fill(keep.length));",
    ),
    hostileTool(
      "capflood",
      "Fires 60,000 unawaited state, audit and denied secret calls.",
      `for (let i = 0; i < 20000; i++) { ctx.state.get("k" + (i % 50)).catch(() => 0); ctx.audit.log({ action: "a" + i, details: { i } }).catch(() => 0); ctx.secrets.get("nope").catch(() => 0); } return "flooded";`,
    ),
    hostileTool(
      "logflood",
      "Fires 40,000 unawaited 1 KB ctx.log and ctx.progress calls.",
      `const m = "k".repeat(1024); for (let i = 0; i < 20000; i++) { ctx.log("info", m).catch(() => 0); ctx.progress(i, 20000, m).catch(() => 0); } return "flooded";`,
    ),
    hostileTool(
      "quota",
      "Writes 8 KB state keys until the quota refuses one.",
      `const v = "v".repeat(8192); const tag = Math.random().toString(36).slice(2); for (let i = 0; i < 100; i++) { try { await ctx.state.set("q" + tag + i, v); } catch (e) { return "refused " + e.code; } } return "never refused";`,
    ),
    hostileTool("huge", "Returns 8 MB.", `return "h".repeat(8 * 1024 * 1024);`),
  ].join("")}
  ],
});
`;

interface Job {
  tool: string;
  input: Record<string, unknown>;
  /** The answer a good call must give; undefined for a hostile call. */
  expect?: string;
}

/** A fixed pseudo-random order (the same in every run): hostile calls spread through the run. */
function shuffled<T>(items: T[], seed = 12345): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** The run's calls: every TOTAL/hostile-th one hostile, the good ones echo and keep alternately. */
function jobs(total: number): Job[] {
  const hostile = Math.round(total * HOSTILE_SHARE);
  const list: Job[] = [];
  for (let i = 0; i < hostile; i++) {
    const ns = HOSTILE[i % HOSTILE.length] as string;
    list.push({ tool: `${ns}:${KINDS[Math.floor(i / HOSTILE.length) % KINDS.length]}`, input: { x: null } });
  }
  for (let i = 0; i < total - hostile; i++) {
    const ns = GOOD[i % GOOD.length] as string;
    const value = `v${i}-${"abcdefgh".repeat(4)}`;
    // the key is filled in by the caller (one key per caller: no two calls race on it)
    list.push(
      i % 4 < 2
        ? { tool: `${ns}:echo`, input: { text: `t${i}` }, expect: `t${i}` }
        : { tool: `${ns}:keep`, input: { value }, expect: value },
    );
  }
  return shuffled(list);
}

/** CPU seconds of this process and of each live child process (the workers), by pid, from /proc. */
function treeCpuSeconds(): Map<number, number> {
  const tick = 100; // USER_HZ on Linux
  const out = new Map<number, number>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(fields[1]);
      if (Number(pid) !== process.pid && ppid !== process.pid) continue;
      out.set(Number(pid), (Number(fields[11]) + Number(fields[12])) / tick);
    } catch {
      // a process that ended meanwhile
    }
  }
  return out;
}

/**
 * CPU the host and its workers use from now on, read every 100 ms: a worker that is killed and
 * replaced keeps what it had used at its last reading (at most 100 ms of it is missed).
 */
function cpuMeter(): { stop(): number } {
  const start = treeCpuSeconds();
  const last = new Map(start);
  const read = () => {
    for (const [pid, s] of treeCpuSeconds()) last.set(pid, s);
  };
  const timer = setInterval(read, 100);
  return {
    stop() {
      clearInterval(timer);
      read();
      let used = 0;
      for (const [pid, s] of last) used += s - (start.get(pid) ?? 0);
      return used;
    },
  };
}

interface RunResult {
  goodUs: number[];
  lost: string[];
  hostileCodes: Map<string, number>;
  wallS: number;
  cpuS: number;
  /** Mean hostile calls in flight, and mean CPU-holding ones (burn, grow), sampled every 10 ms. */
  hostileInFlight: number;
  cpuHostileInFlight: number;
}

async function runMix(bench: BenchHost, list: Job[]): Promise<RunResult> {
  const goodUs: number[] = [];
  const lost: string[] = [];
  const hostileCodes = new Map<string, number>();
  let next = 0;
  let hostileNow = 0;
  let cpuHostileNow = 0;
  const samples = { n: 0, hostile: 0, cpu: 0 };
  const sampler = setInterval(() => {
    samples.n++;
    samples.hostile += hostileNow;
    samples.cpu += cpuHostileNow;
  }, 10);
  const cpu = cpuMeter();
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, caller) => {
      while (next < list.length) {
        const job = list[next++] as Job;
        if (job.expect === undefined) {
          const cpuBound = CPU_KINDS.has(job.tool.split(":")[1] as string);
          hostileNow++;
          if (cpuBound) cpuHostileNow++;
          const outcome = await bench.run.call(job.tool, job.input).catch((e: Error) => ({
            errorCode: `threw ${e.message}`,
          }));
          hostileNow--;
          if (cpuBound) cpuHostileNow--;
          const code = `${job.tool.split(":")[1]}: ${outcome.errorCode ?? "no error"}`;
          hostileCodes.set(code, (hostileCodes.get(code) ?? 0) + 1);
          continue;
        }
        const input = job.tool.endsWith(":keep") ? { ...job.input, key: `slot${caller}` } : job.input;
        const started = process.hrtime.bigint();
        try {
          const outcome = await bench.run.call(job.tool, input);
          goodUs.push(Number(process.hrtime.bigint() - started) / 1000);
          const content = outcome.result.content as Array<{ type: string; text?: string }>;
          const right =
            outcome.errorCode === undefined &&
            content.length === 1 &&
            content[0]?.type === "text" &&
            content[0]?.text === job.expect;
          if (!right) lost.push(`${job.tool}: ${outcome.errorCode ?? JSON.stringify(content).slice(0, 120)}`);
        } catch (error) {
          lost.push(`${job.tool}: threw ${(error as Error).message}`);
        }
      }
    }),
  );
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  clearInterval(sampler);
  return {
    goodUs,
    lost,
    hostileCodes,
    wallS,
    cpuS: cpu.stop(),
    hostileInFlight: samples.n === 0 ? 0 : samples.hostile / samples.n,
    cpuHostileInFlight: samples.n === 0 ? 0 : samples.cpu / samples.n,
  };
}

function percentile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Warms a host's good plugins with their own calls (V8 tiering, row 1), answers checked. */
async function warm(bench: BenchHost, calls: number): Promise<void> {
  const run = await runMix(
    bench,
    jobs(Math.ceil(calls / (1 - HOSTILE_SHARE))).filter((j) => j.expect !== undefined),
  );
  if (run.lost.length > 0) throw new Error(`warm-up calls failed: ${run.lost.slice(0, 3).join("; ")}`);
}

async function measured(
  good: Awaited<ReturnType<typeof buildBenchPlugin>>[],
  hostile: Awaited<ReturnType<typeof buildBenchPlugin>>[],
  list: Job[],
  warmCalls: number,
): Promise<RunResult> {
  const [first, ...rest] = good as [Awaited<ReturnType<typeof buildBenchPlugin>>];
  const bench = await startBenchHost(first, { mode: "workers", limits: LIMITS, more: [...rest, ...hostile] });
  try {
    await warm(bench, warmCalls);
    return await runMix(bench, list);
  } finally {
    await bench.close();
  }
}

export async function hostileMix(quick: boolean): Promise<Row[]> {
  const good = [];
  for (const ns of GOOD) good.push(await buildBenchPlugin(ns, "1.0.0", 0, GOOD_SOURCE));
  const hostile = [];
  for (const ns of HOSTILE) hostile.push(await buildBenchPlugin(ns, "1.0.0", 0, HOSTILE_SOURCE));
  const list = jobs(quick ? QUICK_TOTAL : TOTAL);
  const warmCalls = quick ? 50 : WARM;
  const alone = await measured(
    good,
    [],
    list.filter((j) => j.expect !== undefined),
    warmCalls,
  );
  const mixed = await measured(good, hostile, list, warmCalls);
  const p = (r: RunResult, q: number) => percentile(r.goodUs, q) / 1000;
  const ratio99 = p(mixed, 0.99) / p(alone, 0.99);
  const lost = mixed.lost.length + alone.lost.length;
  const goodCount = list.filter((j) => j.expect !== undefined).length;
  const codes = [...mixed.hostileCodes].map(([k, n]) => `${k} ×${n}`).join(", ");
  const share = shareNote(alone, mixed);
  const baseline = `${goodCount.toLocaleString("en-US")} good calls without the hostile plugins`;
  return [
    {
      id: "10",
      what: `hostile mix: good calls lost or wrong, of ${goodCount.toLocaleString("en-US")} (${list.length.toLocaleString("en-US")} calls, ${Math.round(HOSTILE_SHARE * 100)} % hostile, 4 plugins, ${IN_FLIGHT} in flight, workers)`,
      unit: "calls",
      p50: mixed.lost.length,
      baseline: { what: "the same good calls without the hostile plugins", p50: alone.lost.length },
      target: "0",
      met: lost === 0,
      note: `${mixed.lost.slice(0, 5).join("; ")}${alone.lost.length > 0 ? ` / alone: ${alone.lost.slice(0, 3).join("; ")}` : ""}`,
    },
    {
      id: "10",
      what: "hostile mix: good-call latency p50",
      unit: "ms",
      p50: p(mixed, 0.5),
      p90: p(mixed, 0.9),
      baseline: { what: baseline, p50: p(alone, 0.5) },
      ratio: p(mixed, 0.5) / p(alone, 0.5),
      target: "–",
    },
    {
      id: "10",
      what: "hostile mix: good-call latency p99 (in the p50 column; baseline's p99 beside it)",
      unit: "ms",
      p50: p(mixed, 0.99),
      baseline: { what: `${baseline}, p99`, p50: p(alone, 0.99) },
      ratio: ratio99,
      target: `p99 ≤ ${TARGET_RATIO}× without the hostile plugins`,
      met: ratio99 <= TARGET_RATIO,
      note: `hostile outcomes: ${codes}. ${share}`,
    },
  ];
}

/**
 * What the two runs say about CPU: the cores each kept busy (with the machine's load average,
 * since other processes take the rest), the CPU-burning hostile calls in flight, and the share a
 * good call would need. The share is arithmetic, not a measurement: under equal CPU weights a
 * good call's thread beside `b` burning ones on 2 cores gets 2/(b+2) of a core; when that is
 * already ≥ 1/1.5 and the target is still missed, the good calls waited on something else.
 */
function shareNote(alone: RunResult, mixed: RunResult): string {
  const cores = (r: RunResult) => (r.cpuS / r.wallS).toFixed(2);
  const goodRate = (r: RunResult) => Math.round(r.goodUs.length / r.wallS);
  const burners = mixed.cpuHostileInFlight;
  const equalShare = Math.min(1, 2 / (burners + 2));
  const needed = 1 / TARGET_RATIO;
  return (
    `Without hostile plugins: ${goodRate(alone)} good calls/s, ${alone.wallS.toFixed(1)} s, host and workers busy ${cores(alone)} cores; ` +
    `with: ${goodRate(mixed)} good calls/s, ${mixed.wallS.toFixed(1)} s, ${cores(mixed)} cores; machine load average ${loadavg()[0]?.toFixed(1)} at the end. ` +
    `Hostile calls in flight ${mixed.hostileInFlight.toFixed(1)} on average, ${burners.toFixed(1)} of them burning CPU (burn, grow). ` +
    `CPU share: within ${TARGET_RATIO}× a good call needs ≥ ${Math.round(needed * 100)} % of a core while it runs, so a CPU weight for its plugin ≥ 2× the burning plugins' combined; ` +
    `with equal weights beside ${burners.toFixed(1)} burning calls on 2 cores it gets ≈ ${Math.round(equalShare * 100)} %` +
    (equalShare >= needed ? ", enough: what the good calls waited on was not CPU share." : ".")
  );
}
