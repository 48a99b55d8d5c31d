// Child spans of a tool call's `airlock.tool_call` span (tracing.ts): `airlock.sandbox_run`
// around the sandbox run, and one `airlock.capability` per ctx method call the bridge dispatches.
// The parent is handed down explicitly (CallOptions.traceContext, set by the pipeline's tracing
// stage only while its span records), not read from an async context: bridge dispatches arrive
// from worker messages, where no async context survives. Off (no SDK registered, or a
// sampled-out call) there is no parent, and these helpers run the function straight away: no
// span object, no context copy.
// Invariants: a span always ends; attributes are ids and codes only, never input, output,
// arguments or secrets; a failure sets ERROR with the AIRLOCK_* code.
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { TraceParent } from "../../contracts/runs.ts";

const TRACER = "@airlock/host";

/** An OpenTelemetry Context (declared by its shape in contracts/runs.ts). */
export type { TraceParent };

/** Runs `fn` inside a child span of `parent` (or plainly, without one); `codeOf` names a failure the result carries. */
export function inChildSpan<T>(
  parent: TraceParent | undefined,
  name: string,
  attributes: Record<string, string | number | boolean>,
  fn: () => Promise<T>,
  codeOf?: (value: T) => string | undefined,
): Promise<T> {
  return parent === undefined ? fn() : spanned(parent, name, attributes, fn, codeOf);
}

async function spanned<T>(
  parent: TraceParent,
  name: string,
  attributes: Record<string, string | number | boolean>,
  fn: () => Promise<T>,
  codeOf?: (value: T) => string | undefined,
): Promise<T> {
  const span = trace.getTracer(TRACER).startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
  try {
    const value = await fn();
    const code = codeOf?.(value);
    if (code !== undefined) {
      span.setAttribute("airlock.error_code", code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: code });
    }
    return value;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const text = typeof code === "string" ? code : "thrown";
    span.setAttribute("airlock.error_code", text);
    span.setStatus({ code: SpanStatusCode.ERROR, message: text });
    throw error;
  } finally {
    span.end();
  }
}
