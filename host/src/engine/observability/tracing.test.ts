// Tool-call spans through @opentelemetry/api: with a tracer provider and a W3C propagator
// registered (here, minimal test doubles instead of an SDK), a call's span continues the
// caller's traceparent (admin API header) and records the outcome; with none registered, calls
// run as before.
import {
  type Context,
  propagation,
  type Span,
  type SpanContext,
  type SpanOptions,
  type TextMapGetter,
  type TextMapPropagator,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createAdminApi } from "../../surfaces/http/app.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../../surfaces/http/test-support.ts";

interface Recorded {
  name: string;
  spanId: string;
  traceId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
  status?: { code: number; message?: string };
  ended: boolean;
}
const spans: Recorded[] = [];

const traceparent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const w3c: TextMapPropagator = {
  inject: () => undefined,
  extract(ctx: Context, carrier: unknown, getter: TextMapGetter) {
    const raw = getter.get(carrier, "traceparent");
    const m = traceparent.exec(Array.isArray(raw) ? (raw[0] ?? "") : (raw ?? ""));
    if (m === null) return ctx;
    return trace.setSpanContext(ctx, {
      traceId: m[1] as string,
      spanId: m[2] as string,
      traceFlags: Number.parseInt(m[3] as string, 16),
      isRemote: true,
    });
  },
  fields: () => ["traceparent", "tracestate"],
};

const hex = (n: number) =>
  Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
const tracer: Tracer = {
  startSpan(name: string, options: SpanOptions = {}, ctx?: Context): Span {
    const parent = ctx === undefined ? undefined : trace.getSpanContext(ctx);
    const record: Recorded = {
      name,
      spanId: hex(16),
      traceId: parent?.traceId ?? hex(32),
      parentSpanId: parent?.spanId,
      attributes: { ...options.attributes },
      ended: false,
    };
    spans.push(record);
    const spanContext: SpanContext = { traceId: record.traceId, spanId: record.spanId, traceFlags: 1 };
    const span = {
      spanContext: () => spanContext,
      setAttribute: (k: string, v: unknown) => {
        record.attributes[k] = v;
        return span;
      },
      setAttributes: () => span,
      addEvent: () => span,
      addLink: () => span,
      addLinks: () => span,
      setStatus: (s: { code: number; message?: string }) => {
        record.status = s;
        return span;
      },
      updateName: () => span,
      end: () => {
        record.ended = true;
      },
      isRecording: () => true,
      recordException: () => undefined,
    } as unknown as Span;
    return span;
  },
  startActiveSpan(name: string, ...rest: unknown[]) {
    const fn = rest.at(-1) as (span: Span) => unknown;
    const options = (rest.length >= 2 ? rest[0] : {}) as SpanOptions;
    const ctx = (rest.length >= 3 ? rest[1] : undefined) as Context | undefined;
    return fn(this.startSpan(name, options, ctx));
  },
} as Tracer;

let f: SurfaceFixture;
beforeAll(async () => {
  f = await createSurfaceFixture();
});
afterAll(async () => {
  trace.disable();
  propagation.disable();
  await f.close();
});

test("runs calls as before when no tracer provider is registered", async () => {
  expect((await f.host.callTool("alpha", "kit:echo", { text: "untraced" })).errorCode).toBeUndefined();
  expect(spans).toEqual([]);
});

test("continues the caller's W3C traceparent in the call's span and records its outcome", async () => {
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  propagation.setGlobalPropagator(w3c);
  const app = createAdminApi(f.host, { mcp: false, log: () => undefined });
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const res = await app.request("/api/instances/alpha/calls", {
    method: "POST",
    headers: {
      authorization: `Bearer ${f.agentToken}`,
      "content-type": "application/json",
      traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
    },
    body: JSON.stringify({ tool: "kit:fail", input: {} }),
  });
  const outcome = (await res.json()) as { callId: string; errorCode: string };
  const span = spans.find((s) => s.attributes["airlock.call_id"] === outcome.callId);
  expect(span).toMatchObject({
    name: "airlock.tool_call",
    traceId,
    parentSpanId: "00f067aa0ba902b7",
    ended: true,
    attributes: {
      "airlock.agent": "alpha",
      "airlock.tool": "kit:fail",
      "airlock.error_code": outcome.errorCode,
    },
    status: { code: 2, message: outcome.errorCode },
  });
  expect(JSON.stringify(span)).not.toContain("input");
});

test("puts the sandbox run and each capability call in child spans of the call's span", async () => {
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  propagation.setGlobalPropagator(w3c);
  const traceId = "5bf92f3577b34da6a3ce929d0e0e4737";
  const outcome = await f.host.callTool(
    "alpha",
    "kit:slow",
    {},
    { agent: "alpha", trace: { traceparent: `00-${traceId}-00f067aa0ba902b8-01` } },
  );
  expect(outcome.errorCode).toBeUndefined();
  const call = spans.find((s) => s.attributes["airlock.call_id"] === outcome.callId);
  expect(call).toMatchObject({ name: "airlock.tool_call", traceId, ended: true });
  const run = spans.find((s) => s.name === "airlock.sandbox_run" && s.parentSpanId === call?.spanId);
  expect(run).toMatchObject({
    traceId,
    ended: true,
    attributes: {
      "airlock.tool": "kit:slow",
      "airlock.call_id": outcome.callId,
      "airlock.sandbox": "in-process",
    },
  });
  // kit:slow reports progress twice and logs once: three capability calls, each its own span.
  const capabilities = spans.filter(
    (s) => s.name === "airlock.capability" && s.parentSpanId === call?.spanId,
  );
  expect(
    capabilities.map((s) => `${s.attributes["airlock.capability"]}.${s.attributes["airlock.method"]}`).sort(),
  ).toEqual(["log.write", "progress.report", "progress.report"].sort());
  expect(capabilities.every((s) => s.ended && s.traceId === traceId)).toBe(true);
});

test("continues a traceparent an MCP client sends in the tools/call request's _meta", async () => {
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  propagation.setGlobalPropagator(w3c);
  const { Client } = await import("@modelcontextprotocol/client");
  const { InMemoryTransport } = await import("@modelcontextprotocol/server");
  const { createAgentMcpServer } = await import("../../surfaces/mcp/server.ts");
  const server = createAgentMcpServer(
    f.host,
    "alpha",
    { log: () => undefined },
    {
      era: "legacy",
      conversationId: "mcp-trace",
    },
  );
  const client = new Client({ name: "trace", version: "1.0.0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  const traceId = "0af7651916cd43dd8448eb211c80319c";
  const result = await client.callTool({
    name: "kit__echo",
    arguments: { text: "traced" },
    _meta: { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
  });
  const callId = result._meta?.["airlock/callId"];
  const span = spans.find((s) => s.attributes["airlock.call_id"] === callId);
  expect(span).toMatchObject({
    name: "airlock.tool_call",
    traceId,
    parentSpanId: "b7ad6b7169203331",
    ended: true,
  });
  await client.close();
});
