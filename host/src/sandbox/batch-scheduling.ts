// Sandbox workers run under the Linux SCHED_BATCH policy when the system lets them: a batch task
// keeps its fair share of CPU but does not preempt the task running on a CPU when it wakes up. On
// a host with more busy processes than cores, a worker woken by a call otherwise often takes the
// CPU from the host's event loop in the middle of its `write` (measured: that write took 76 µs of
// the host's time under load, against ≈ 10 µs alone), and the event loop serves every agent.
// The policy is set by util-linux's `chrt`, which sets it and executes the worker in its place
// (the same process id); `chrt` is probed once (setting the policy on itself and running its own
// `--version`), and without it, or where the policy is refused, workers start as before.
// Invariants: only the workers get the policy, never the host; a failed probe is never retried.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const CANDIDATES = ["/usr/bin/chrt", "/bin/chrt"];
let probed: string | null | undefined;

/** The command prefix that starts a program under SCHED_BATCH, or [] where it cannot. */
export function batchPrefix(): string[] {
  if (probed === undefined) probed = probe();
  return probed === null ? [] : [probed, "--batch", "0"];
}

function probe(): string | null {
  const chrt = CANDIDATES.find((path) => existsSync(path));
  if (chrt === undefined) return null;
  const r = spawnSync(chrt, ["--batch", "0", chrt, "--version"], {
    env: {},
    stdio: "ignore",
    timeout: 5_000,
  });
  return r.status === 0 ? chrt : null;
}
