// V8 flags the process that runs plugin isolates needs, set once before its first isolate
// (createEngine: the host process in-process, each worker process in workers mode).
// Why: with Turboshaft's loop unrolling (V8 13.x, Node 24), a loop such as
// `const keep = []; for (;;) keep.push(new Array(4096).fill(1));` is compiled to code that never
// reaches an interrupt check. isolated-vm ends an entry by interrupting it — its `timeout` and its
// memoryLimit (the heap callback asks for termination on every full GC) — so such a call went on
// forever: the heap grew past the limit into gigabytes (isolated-vm lets V8 go 1 GB over, again
// and again) and a worker's thread never came back, its bystander calls lost when the host killed
// it. Without loop unrolling the same loop ends with the memory limit or the timeout (measured:
// 128 MiB at cpuMs 250 → timed out at 259–539 ms; at cpuMs 2000 → memory limit at 1.7–2.1 s;
// the 2-core dev VM under load). Maglev and the rest of Turbofan stay on.
// Invariants: set before any plugin code is compiled in this process (V8 reads compiler flags
// when it compiles; the flag hash, part of a code cache's check, is the same in every process
// that makes or reads one); idempotent.
import { setFlagsFromString } from "node:v8";

/** Interrupt checks a plugin's loop must keep (see above). */
export const PLUGIN_V8_FLAGS = ["--no-turboshaft-loop-unrolling"] as const;

let applied = false;

/** Sets PLUGIN_V8_FLAGS in this process (once). */
export function applyPluginV8Flags(): void {
  if (applied) return;
  applied = true;
  for (const flag of PLUGIN_V8_FLAGS) setFlagsFromString(flag);
}
