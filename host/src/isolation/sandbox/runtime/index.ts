// The Web-standard runtime of plugin isolates (and of any other isolate the sandbox builds, such
// as code mode's): the isolate-side script (WEB_RUNTIME_SOURCE, which defines
// globalThis.__airlockWebRuntime; see isolate/index.js for its contract), the host primitives
// Reference it calls, and the per-isolate scheduler of its bounded timers.
// How to use it in an isolate: run WEB_RUNTIME_SOURCE in the context, then, in the same
// script before any untrusted code, take and delete __airlockWebRuntime and the primitives
// Reference and call install(globalThis, primitivesRef, onUncaught(seq, error)); tell the
// runtime begin(seq)/enter(seq)/end(seq) around a call's entries, and enter fire(seq) when
// CallTimers asks. The plugin bootstrap (../isolate/bootstrap.js) is the reference user.
export { CallTimers } from "./call-timers.ts";
export { createHostPrimitives, MAX_RANDOM_BYTES } from "./host-primitives.ts";
export { oneByte, WEB_RUNTIME_SOURCE } from "./sources.ts";

/** Timers a call may have pending at once (the next setTimeout throws AIRLOCK_SANDBOX_TIMER_LIMIT). */
export const MAX_PENDING_TIMERS = 1000;
