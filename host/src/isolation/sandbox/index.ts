// Public entry of the sandbox runtime: `createSandbox({mode})` returns a Sandbox running plugins
// in isolated-vm either in worker processes (the default) or in this process.
// Invariant: this folder is the only place in the repository that imports isolated-vm.
import { sandboxError } from "./errors.ts";
import { createInProcessSandbox, type InProcessOptions } from "./in-process.ts";
import type { Sandbox } from "./types.ts";
import { createWorkerSandbox, type WorkerSandboxOptions } from "./worker/workers.ts";

export type SandboxOptions =
  | ({ mode: "workers" } & WorkerSandboxOptions)
  | ({ mode: "in-process" } & InProcessOptions);

export function createSandbox(options: SandboxOptions = { mode: "workers" }): Sandbox {
  if (options.mode === "workers") return createWorkerSandbox(options);
  if (options.mode === "in-process") return createInProcessSandbox(options);
  throw sandboxError(
    "AIRLOCK_SANDBOX_OPTIONS_INVALID",
    `unknown sandbox mode ${JSON.stringify((options as { mode: unknown }).mode)}; accepted: workers, in-process`,
  );
}

export { SANDBOX_ERRORS } from "./errors.ts";
export { createInProcessSandbox } from "./in-process.ts";
export { DEFAULT_LIMITS, resolveLimits } from "./limits.ts";
export type * from "./types.ts";
export type { WorkerDeathNotice } from "./worker/worker-fleet.ts";
export type { CpuMoveNotice, CpuShare, QuarantineNotice } from "./worker/worker-tiers.ts";
export { createWorkerSandbox, type WorkerSandbox } from "./worker/workers.ts";
export type { InProcessOptions, WorkerSandboxOptions };
