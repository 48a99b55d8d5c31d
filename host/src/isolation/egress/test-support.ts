// Test support for the egress suites (imported by tests only, here and in test/hostile/):
// loopback HTTP servers the tests start and inspect, CallGrants issued by the real bridge
// (issueGrant, from a manifest that went through parseManifest), a resolver the test controls,
// an in-memory audit sink and secret source, and fetchHarness that ties them together.
// Invariants: servers listen on 127.0.0.1 port 0 only; the resolver never asks real DNS.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type EgressRule, type PluginManifest, parseManifest } from "@airlock/sdk/manifest";
import { manifestHostRefusal } from "@airlock/sdk/special-hosts";
import type { AuditInput } from "../../state/store/types.ts";
import { createBridge } from "../bridge/bridge.ts";
import type { CallGrant } from "../bridge/types.ts";
import { createFetchCapability } from "./fetch-capability.ts";
import type { FetchLimits, FetchResult, HostPolicy, ResolvedAddress, Resolver } from "./types.ts";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

export interface TestServer {
  readonly port: number;
  readonly seen: SeenRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** `http://<host>:<port><path>` */
  url(path?: string, host?: string): string;
  close(): Promise<void>;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => void;

/** Writes `chunk` for as long as the client keeps reading: a body with no end. */
export function endlessBody(res: ServerResponse, chunk = Buffer.alloc(16 * 1024, 120)): void {
  res.writeHead(200, { "content-type": "application/octet-stream" });
  const pump = () => {
    while (!res.destroyed && res.write(chunk)) {
      // keep writing until the socket buffers fill, then wait for 'drain'
    }
    if (!res.destroyed) res.once("drain", pump);
  };
  pump();
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(entry);
      handler(entry, res);
    });
  });
  let connections = 0;
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    seen,
    connections: () => connections,
    url: (path = "/", host = "127.0.0.1") => `http://${host}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resolves only the names in `table`; anything else fails like a missing DNS name. */
export function tableResolver(table: Record<string, string | string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    const entry = table[hostname];
    if (entry === undefined) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return (Array.isArray(entry) ? entry : [entry]).map((address) => ({
      address,
      family: address.includes(":") ? 6 : 4,
    }));
  };
  return Object.assign(resolver, { asked });
}

export interface GrantOptions {
  egress: EgressRule[];
  /** Keys the tool declares in requiredSecrets. */
  secrets?: string[];
  namespace?: string;
  tool?: string;
  agent?: string;
  signal?: AbortSignal;
  /** The call's memory budget for inbound data (CallGrant.maxInboundBytes). */
  maxInboundBytes?: number;
}

export function testManifest(options: GrantOptions): PluginManifest {
  return parseManifest({
    manifestVersion: 1,
    namespace: options.namespace ?? "egress-test",
    version: "1.0.0",
    description: "egress test plugin",
    engine: ">=1.0.0",
    sdk: "1.0.0",
    bundle: { file: "index.js", integrity: `sha512-${"A".repeat(86)}==`, size: 0 },
    tools: [
      {
        name: options.tool ?? "call",
        description: "calls out",
        category: "utilities",
        inputSchema: { type: "object" },
        annotations: {},
        requiredSecrets: (options.secrets ?? []).map((key) => ({
          key,
          type: "text",
          optional: false,
          sensitive: true,
        })),
        inputExamples: [],
        harness: null,
      },
    ],
    knowledge: null,
    // Hosts no manifest may declare any more (metadata endpoints) stay out of the manifest;
    // testGrant still hands them to the gate, to prove its run-time refusal on its own.
    egress: options.egress.filter((rule) => manifestHostRefusal(rule.host) === null),
    limits: {},
  });
}

/** A CallGrant issued by the real bridge for one call of the manifest's (only) tool. */
export function testGrant(options: GrantOptions): CallGrant {
  const manifest = testManifest(options);
  const bridge = createBridge({ capabilities: [], audit: async () => undefined });
  return bridge.issueGrant({
    agent: options.agent ?? "agent-1",
    conversationId: "conv-1",
    manifest,
    tool: (manifest.tools[0] as PluginManifest["tools"][number]).name,
    knowledgeLevel: null,
    capabilityCalls: 100,
    egress: options.egress,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.maxInboundBytes === undefined ? {} : { maxInboundBytes: options.maxInboundBytes }),
  });
}

export function auditSink(): { entries: AuditInput[]; audit: (e: AuditInput) => Promise<void> } {
  const entries: AuditInput[] = [];
  return { entries, audit: async (e) => void entries.push(e) };
}

export function secretSource(values: Record<string, Record<string, string>>) {
  return { get: async (agent: string, key: string) => values[agent]?.[key] };
}

/** Everything a leak could hide in, as one searchable string (bodies decoded as UTF-8). */
export function everything(...things: unknown[]): string {
  return JSON.stringify(things, (_key, value: unknown) => {
    if (value instanceof Uint8Array) return Buffer.from(value).toString("utf8");
    if (value instanceof Error) {
      return { ...value, message: value.message, stack: value.stack, cause: value.cause };
    }
    return value;
  });
}

export interface HarnessOptions extends GrantOptions {
  /** A server that answers 200: the harness can reach it as `health.test` to prove the gate still works. */
  health: TestServer;
  table?: Record<string, string | string[]>;
  /** Answers every name but health.test (instead of `table`). */
  resolver?: Resolver;
  allowPrivate?: string[];
  hosts?: HostPolicy;
  limits?: Partial<FetchLimits>;
  /** Secret values of agent-1. */
  values?: Record<string, string>;
}

type FetchHarness = {
  healthy(): Promise<boolean>;
  leakFree(...outputs: unknown[]): boolean;
};
const created: FetchHarness[] = [];

/**
 * The containment check every hostile egress test ends with, for every harness the test made:
 * the gate still serves an allowed request, and no secret value appears in any request's
 * output or audit entry. Returns the problems (empty when contained) and forgets the harnesses.
 */
export async function containmentProblems(): Promise<string[]> {
  const problems: string[] = [];
  for (const [i, h] of created.splice(0).entries()) {
    if (!(await h.healthy().catch(() => false))) problems.push(`harness ${i}: not healthy`);
    if (!h.leakFree()) problems.push(`harness ${i}: a secret value leaked`);
  }
  return problems;
}

/** A fetch capability with a controlled resolver and audit, plus a grant for one call. */
export function fetchHarness(options: HarnessOptions) {
  const sink = auditSink();
  const table = tableResolver({ "health.test": "127.0.0.1", ...options.table });
  const custom = options.resolver;
  const resolver: Resolver & { asked: string[] } =
    custom === undefined
      ? table
      : Object.assign((name: string) => (name === "health.test" ? table(name) : custom(name)), {
          asked: table.asked,
        });
  const cap = createFetchCapability({
    secrets: secretSource({ "agent-1": options.values ?? {} }),
    policy: {
      allowPrivate: ["health.test", ...(options.allowPrivate ?? [])],
      ...(options.hosts === undefined ? {} : { hosts: options.hosts }),
    },
    resolver,
    audit: sink.audit,
    limits: { timeoutMs: 10_000, ...options.limits },
  });
  const grant = testGrant({
    ...options,
    egress: [...options.egress, { host: "health.test", schemes: ["http"], ports: [options.health.port] }],
  });
  /** Every answer and refusal a request produced: what a leak check must search. */
  const outputs: unknown[] = [];
  const send = (g: CallGrant, url: string, init?: unknown) =>
    (cap.methods.request as NonNullable<typeof cap.methods.request>)(g, [url, init]) as Promise<FetchResult>;
  const request = (url: string, init?: unknown) =>
    send(grant, url, init).then(
      (res) => {
        outputs.push(res);
        return res;
      },
      (err: unknown) => {
        outputs.push(err);
        throw err;
      },
    );
  /** The rejection of a request (fails the test if it resolves). */
  const refusal = async (url: string, init?: unknown) => {
    const outcome = await request(url, init).then(
      (res) => ({ ok: true as const, res }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    if (outcome.ok) throw new Error(`expected a refusal, got HTTP ${outcome.res.status} from ${url}`);
    return outcome.err as { code: string; message: string; details?: Record<string, unknown> };
  };
  /**
   * True when an allowed request still succeeds through the same capability — for the same
   * call, or (once that call has ended) for a fresh grant of the same tool.
   */
  const healthy = async () => {
    const { signal: _ended, ...fresh } = options;
    const g = grant.signal.aborted ? testGrant({ ...fresh, egress: grant.egress as EgressRule[] }) : grant;
    return (await send(g, `http://health.test:${options.health.port}/`)).status === 200;
  };
  /** True when no secret value appears in the given outputs, any request's output or any audit entry. */
  const leakFree = (...given: unknown[]) => {
    const text = everything(...given, ...outputs, sink.entries);
    return Object.values(options.values ?? {}).every((v) => !text.includes(v));
  };
  const harness = { cap, grant, sink, resolver, request, refusal, healthy, leakFree };
  created.push(harness);
  return harness;
}
