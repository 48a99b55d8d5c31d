// OpenTelemetry spans for tool calls, through @opentelemetry/api only: the host never installs
// an SDK. An embedder or operator who registers one (a tracer provider, the W3C trace-context
// propagator, an async context manager) gets one `airlock.tool_call` span per call, continuing
// the caller's W3C `traceparent` (admin API header, or CallOptions.trace from an MCP request's
// `_meta`); without one the API is its no-op, which is what "off" costs: a no-op span object
// and a few function calls, measured at 0.3–0.4 µs per call on this machine, against the
// 125–280 µs of a whole warm pipeline call (bench row 1). The span is a stage of the call
// path (pipeline/stages/tracing.ts), so every call the pipeline runs has one.
// Invariants: a span always ends, whatever the call does; a tool failure (an outcome with an
// error code) sets the span's status to ERROR with that code; no input, output or secret is
// ever an attribute (agent, tool id, run id, call id, replica, error code only).
import {
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import type { CallOptions } from "../../contracts/host.ts";

const TRACER = "@airlock/host";

/** The tracer of the global provider, kept while that provider is the global one (trace.disable() replaces it). */
let provider: TracerProvider | undefined;
let tracer: Tracer | undefined;

function hostTracer(): Tracer {
  const current = trace.getTracerProvider();
  if (current !== provider || tracer === undefined) {
    provider = current;
    tracer = current.getTracer(TRACER);
  }
  return tracer;
}

/** The run facts a call's span names. */
export interface TracedRun {
  id: string;
  agent: string;
  /** The replica running the call (cluster membership). */
  replica: string;
}

/**
 * Opens a call's `airlock.tool_call` span, continuing the caller's W3C trace context; the
 * options carry the span's context on (child spans: sandbox run, capability calls) only while
 * it records. The pipeline's tracing stage (pipeline/stages/tracing.ts) opens and ends it.
 */
export function openCallSpan(
  run: TracedRun,
  toolName: string,
  options: CallOptions,
): { span: Span; options: CallOptions } {
  const carrier: Record<string, string> = {};
  if (options.trace?.traceparent !== undefined) carrier.traceparent = options.trace.traceparent;
  if (options.trace?.tracestate !== undefined) carrier.tracestate = options.trace.tracestate;
  const parent = propagation.extract(context.active(), carrier);
  const span = hostTracer().startSpan(
    "airlock.tool_call",
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        "airlock.agent": run.agent,
        "airlock.tool": String(toolName),
        "airlock.run_id": run.id,
        "airlock.replica": run.replica,
      },
    },
    parent,
  );
  return {
    span,
    options: span.isRecording() ? { ...options, traceContext: trace.setSpan(parent, span) } : options,
  };
}

/** Ends a call's span: its call id, and for a failure the ERROR status with the outcome's code. */
export function endCallSpan(span: Span, callId: string, errorCode: string | undefined): void {
  span.setAttribute("airlock.call_id", callId);
  if (errorCode !== undefined) {
    span.setAttribute("airlock.error_code", errorCode);
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode });
  }
  span.end();
}
