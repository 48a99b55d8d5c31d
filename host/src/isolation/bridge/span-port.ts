// What the bridge needs to trace a capability call, declared here in the bridge's layer and
// implemented above it: engine/observability/spans.ts `inChildSpan` is the implementation, and
// the composition root (host.ts) hands it to createBridge. Without one, the bridge runs every
// dispatch plainly (no span), as it does for a call that carries no span context.
// Invariants: types only (this file loads nothing); the bridge passes a span only ids it chose
// (capability and method names, cut to 100 characters), never arguments, values or tokens.
import type { Context } from "@opentelemetry/api";

/** A call's span context (OpenTelemetry's Context): the bridge only hands it back to the port. */
export type TraceParent = Context;

/** Runs `fn` inside a child span of `parent` named `name`, with `attributes`; answers what `fn` answers. */
export type ChildSpan = <T>(
  parent: TraceParent,
  name: string,
  attributes: Record<string, string | number | boolean>,
  fn: () => Promise<T>,
) => Promise<T>;
