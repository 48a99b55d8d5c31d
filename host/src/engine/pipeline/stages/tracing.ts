// Stage "tracing": one `airlock.tool_call` span per call, through @opentelemetry/api only
// (observability/tracing.ts holds the tracer and the span's opening; this stage places it).
// Contract: enter opens the span, continuing the caller's W3C trace context, and hands its
// context to the later stages (options.traceContext) only while it records; leave sets the
// call id and, for a failure, the ERROR status with the outcome's code, and always ends it.
// Invariants: never stops a call; no input, output or secret is ever an attribute.
import { endCallSpan, openCallSpan } from "../../observability/tracing.ts";
import type { CallStage } from "./types.ts";

export const tracingStage: CallStage = {
  name: "tracing",
  enter(call) {
    const opened = openCallSpan(call.run, call.rawName, call.options);
    call.span = opened.span;
    call.options = opened.options;
    return undefined;
  },
  leave(call) {
    if (call.span !== undefined) endCallSpan(call.span, call.callId, call.end?.errorCode);
  },
};
