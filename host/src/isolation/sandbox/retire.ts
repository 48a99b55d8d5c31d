// A call that ends by a limit leaves nothing behind. Its code may still be queued in the isolate
// (a thenable chain, work scheduled after returning, an await the deadline cut short), and the
// agent's context holds whatever it left in globals. So such a call retires its generation:
// the runtime stops handing it out (the next call, of this agent or another, gets a fresh
// isolate and fresh contexts), and the retired isolate is disposed as soon as no call is in
// flight in it — at once when none is, else when the last one ends; other agents' calls that
// were already running in it finish normally. Once disposed, nothing queued there ever runs.
// Limits that end a call: the wall deadline or the caller's signal (timeouts, cancellation,
// the bridge's capability-call cap), and cpuMs (the isolate's own timeout keeps the isolate; a
// CPU overrun after an await already resets it).
import type { Generation } from "./generation.ts";

const retired = new WeakSet<Generation>();

/** Marks `gen` retired; disposes it now if nothing runs in it. */
export function retireGeneration(gen: Generation, dispose: (gen: Generation) => void): void {
  retired.add(gen);
  if (gen.executions.size === 0 && gen.preparing === 0) dispose(gen);
}

/** Whether `gen` was retired (the runtime must not hand it to a new call). */
export function isRetired(gen: Generation): boolean {
  return retired.has(gen);
}

/** After a call in `gen` ended: disposes a retired generation once it is empty. */
export function afterCallIn(gen: Generation, dispose: (gen: Generation) => void): void {
  if (retired.has(gen) && gen.executions.size === 0 && gen.preparing === 0) dispose(gen);
}

/** Codes of a call that ended by a limit (its code may still be queued in the isolate). */
export function endedByLimit(code: string | undefined): boolean {
  return code === "AIRLOCK_SANDBOX_TIMEOUT" || code === "AIRLOCK_SANDBOX_CPU_LIMIT";
}
