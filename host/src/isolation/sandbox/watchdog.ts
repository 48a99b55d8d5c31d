// The CPU watchdog of one isolate generation: samples `isolate.cpuTime` and charges what was burnt
// since the last sample to the calls in flight (split evenly), or — with none in flight — to code
// a call left running. It stops what the isolate `timeout` cannot (CPU spent after an await).
// Invariants: CPU burnt before a call started is never charged to it (the runtime samples right
// before adding a call); the next sample is due when the most-charged call could reach cpuMs
// (at most `intervalMs`, at least 1 ms), so a runaway after an await is stopped within a few ms of
// its budget when the process gets CPU; background CPU is watched for wallMs after the last call ended.
import type { Generation } from "./generation.ts";

/**
 * CPU past cpuMs before the watchdog resets the isolate. A synchronous loop is stopped by the
 * isolate `timeout` at cpuMs (wall ≥ CPU) without losing the isolate; the watchdog, which must
 * dispose it, stops only what that misses (CPU spent after an await), this much later.
 */
export const WATCHDOG_GRACE_MS = 2;

export interface WatchHooks {
  cpuMs: number;
  wallMs: number;
  intervalMs: number;
  /** A call passed cpuMs (its Execution is marked `exceeded`): reset the isolate. */
  onExceeded(): void;
  /** Code left running burnt more than cpuMs with no call in flight: reset the isolate. */
  onBackground(): void;
  /** The isolate was disposed behind our back (V8 memory limit). */
  onDisposed(): void;
}

/** Starts watching (if not already) and makes the next sample due in time for a new call. */
export function watch(gen: Generation, hooks: WatchHooks): void {
  gen.idleSince = 0;
  if (gen.timer) clearTimeout(gen.timer);
  else gen.lastCpu = gen.isolate.cpuTime;
  arm(gen, hooks);
}

function arm(gen: Generation, hooks: WatchHooks): void {
  gen.timer = setTimeout(
    () => {
      gen.timer = null;
      if (sample(gen, hooks)) arm(gen, hooks);
    },
    nextDelay(gen, hooks),
  );
  gen.timer.unref();
}

function nextDelay(gen: Generation, hooks: WatchHooks): number {
  if (gen.executions.size === 0) return hooks.intervalMs;
  let most = 0;
  for (const exec of gen.executions.values()) most = Math.max(most, exec.cpuNs);
  // each call gets 1/n of the isolate's CPU: wall time until the most-charged one reaches cpuMs
  const untilMs = (((hooks.cpuMs + WATCHDOG_GRACE_MS) * 1e6 - most) / 1e6) * gen.executions.size;
  return Math.max(1, Math.min(hooks.intervalMs, Math.ceil(untilMs)));
}

/** Charges CPU burnt since the last sample; false once there is nothing left to watch. */
export function sample(gen: Generation, hooks: WatchHooks): boolean {
  if (gen.isolate.isDisposed) {
    hooks.onDisposed();
    return false;
  }
  const now = gen.isolate.cpuTime;
  const delta = Number(now - gen.lastCpu);
  gen.lastCpu = now;
  const { cpuMs, wallMs } = hooks;
  if (gen.executions.size === 0 && gen.preparing > 0) {
    gen.idleSince = 0;
    return true;
  }
  if (gen.executions.size === 0) {
    // nothing in flight: CPU burnt now is code a call left running; watch it for wallMs
    if (gen.idleSince === 0) {
      gen.idleSince = Date.now();
      gen.backgroundNs = 0;
      return true;
    }
    gen.backgroundNs += delta;
    if (gen.backgroundNs > cpuMs * 1e6) {
      hooks.onBackground();
      return false;
    }
    return Date.now() - gen.idleSince <= wallMs;
  }
  gen.idleSince = 0;
  const share = delta / gen.executions.size;
  const limitNs = (cpuMs + WATCHDOG_GRACE_MS) * 1e6;
  let exceeded = false;
  for (const [seq, exec] of gen.executions) {
    exec.cpuNs += share;
    if (exec.cpuNs > limitNs) exec.exceeded = exceeded = true;
    // abandoned after its deadline and not spinning: stop watching it
    else if (exec.bridge === null && Date.now() - exec.startedAt > (exec.wallMs ?? wallMs) + cpuMs)
      gen.executions.delete(seq);
  }
  if (exceeded) {
    hooks.onExceeded();
    return false;
  }
  return true;
}
