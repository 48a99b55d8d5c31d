// Sample statistics for the benchmark suite: medians and p90 of timed samples, in µs.
// Invariant: every figure the suite prints comes from samples gathered in the same run.

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  min: number;
  mean: number;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0)
    return { n: 0, p50: Number.NaN, p90: Number.NaN, min: Number.NaN, mean: Number.NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { n: sorted.length, p50: at(0.5), p90: at(0.9), min: sorted[0] as number, mean };
}

/**
 * Calls a call path runs before it is sampled as warm: V8 tiers the host's and the worker's code
 * up (Maglev, then Turbofan) over the first 1,000–1,500 calls (bench/scenarios/warm-call.ts).
 */
export const WARM_CALLS = 2000;

/** Times `fn` `iterations` times after `warmup` untimed runs; returns µs per call samples. */
export async function sample(
  iterations: number,
  fn: () => Promise<unknown> | unknown,
  warmup = Math.min(50, iterations),
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return out;
}

export function ratio(a: number, b: number): number {
  return b === 0 ? Number.NaN : a / b;
}
