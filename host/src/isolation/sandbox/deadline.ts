// The wall-clock deadline of one sandbox call, started where the call enters the sandbox in the
// host process (both modes), and the one error a deadline produces.
// Invariants: a call that does not finish in time always rejects with AIRLOCK_SANDBOX_TIMEOUT,
// whichever fires first: `details.reason` is "wallMs" when the plugin's own wallMs passed and
// "signal" when the caller's signal aborted first (its own deadline or a cancellation). A worker
// process keeps only a later backstop (wallMs + WORKER_BACKSTOP_MS) for a cancel that got lost,
// so the host-side deadline decides, not the race between two processes' timers.
import { AirlockError } from "@airlock/sdk/errors";
import { sandboxError } from "./errors.ts";

/** How long after wallMs a worker stops a call the host did not cancel (a lost message). */
export const WORKER_BACKSTOP_MS = 1_000;

export type DeadlineReason = "wallMs" | "signal";

export function timeoutError(reason: DeadlineReason, wallMs: number): AirlockError {
  const message =
    reason === "wallMs"
      ? `the call passed its ${wallMs} ms wall-clock deadline`
      : "the caller's signal ended the call (its deadline or a cancellation)";
  return sandboxError("AIRLOCK_SANDBOX_TIMEOUT", message, { reason, wallMs });
}

/** The error a call ended by `signal` rejects with: the deadline's own, or a generic timeout. */
export function abortError(signal: AbortSignal, wallMs: number): AirlockError {
  const reason: unknown = signal.reason;
  if (reason instanceof AirlockError && reason.code === "AIRLOCK_SANDBOX_TIMEOUT") return reason;
  return timeoutError("signal", wallMs);
}

export interface Deadline {
  /** Aborts (reason: the AIRLOCK_SANDBOX_TIMEOUT error) at wallMs or when `outer` aborts. */
  readonly signal: AbortSignal;
  /** Stops the timer and detaches from `outer`; call once the call settled. */
  clear(): void;
}

/**
 * One timer and one listener per call (cheaper than AbortSignal.any + AbortSignal.timeout).
 * The timer fires after `wallMs + slackMs` (a worker's backstop) and reports `wallMs`.
 * Given the call's own controller instead of a signal, the timer aborts that controller and no
 * second controller or listener is made (a worker's call: its cancel and its deadline are then
 * one abort path; the signal's reason is the canceller's own, which abortError() reports as
 * "signal").
 */
export function startDeadline(wallMs: number, outer: AbortSignal | AbortController, slackMs = 0): Deadline {
  if (outer instanceof AbortController) return ownDeadline(wallMs, outer, slackMs);
  const controller = new AbortController();
  const onOuter = () => controller.abort(timeoutError("signal", wallMs));
  if (outer.aborted) onOuter();
  else outer.addEventListener("abort", onOuter, { once: true });
  const timer = setTimeout(() => controller.abort(timeoutError("wallMs", wallMs)), wallMs + slackMs);
  timer.unref();
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      outer.removeEventListener("abort", onOuter);
    },
  };
}

function ownDeadline(wallMs: number, controller: AbortController, slackMs: number): Deadline {
  const { signal } = controller;
  if (signal.aborted) return { signal, clear: () => undefined };
  const timer = setTimeout(() => controller.abort(timeoutError("wallMs", wallMs)), wallMs + slackMs);
  timer.unref();
  return { signal, clear: () => clearTimeout(timer) };
}
