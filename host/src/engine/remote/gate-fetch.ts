// The `fetch` the MCP client uses toward a remote server: every request goes through the egress
// gate's own checks (host/src/isolation/egress/: the URL against the plugin's egress rule and the
// operator's host policy, the private/metadata address rules after DNS resolution, a connection
// pinned to the addresses that were checked) and nothing else reaches the network.
// Invariants: a redirect is never followed (AIRLOCK_REMOTE_REDIRECT_REFUSED, naming the target
// host only); a response body is counted as it streams and cut at `maxBytes`
// (AIRLOCK_REMOTE_RESPONSE_TOO_LARGE); no standalone GET stream is opened (answered 405 here,
// without a request: Airlock takes nothing from a remote server outside its own requests); the
// first failure is kept in `failure()` so the caller reports that code, not the MCP client's
// rewording of it; a header value is never part of an error message. A gate lives as long as
// its session (reused across calls, session-pool.ts): the signal and byte cap are read per
// request from `limits()`, the byte count restarts with each operation (`startOperation`), and
// one connection pool is kept per set of checked addresses (the DNS check runs on every request).
import type { IncomingHttpHeaders } from "node:http";
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import type { EgressRule } from "@airlock/sdk/manifest";
import type { Agent, Dispatcher } from "undici";
import type { PrivateAllowance } from "../../isolation/egress/address.ts";
import { checkDestination, parseUrl } from "../../isolation/egress/destination.ts";
import { pinnedLookup, resolveChecked } from "../../isolation/egress/resolve.ts";
import type { HostPolicy, Resolver } from "../../isolation/egress/types.ts";
import { loadUndici } from "../../isolation/egress/undici.ts";
import { remoteError } from "./errors.ts";

export interface GateOptions {
  namespace: string;
  rule: EgressRule;
  hosts: HostPolicy | undefined;
  allowance: PrivateAllowance;
  resolver: Resolver;
  ca: readonly string[] | undefined;
  /** Header added to every request (the plugin's auth header), or none. */
  header: { name: string; value: string } | undefined;
  connectTimeoutMs: number;
  /**
   * The current operation's limits: its signal ends every request in flight (the call's
   * deadline or cancellation); its byte cap bounds the bytes received since `startOperation`.
   */
  limits(): { signal: AbortSignal; maxBytes: number };
  /** Told of the first failure (a body cut at the cap fails a stream the client may not surface). */
  onFailure?: (error: Error & { code: string }) => void;
}

export interface GatedFetch {
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /** The first refusal or failure seen, as an AirlockError. */
  failure(): (Error & { code: string }) | undefined;
  /** Bytes received over all responses of the current operation. */
  received(): number;
  /** A new operation on the same session: its bytes are counted from zero. */
  startOperation(): void;
  /** Whether the server answered 404 to a request naming its session (the session is gone). */
  sessionGone(): boolean;
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

function requestHeaders(
  init: RequestInit | undefined,
  header: GateOptions["header"],
): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    out[name] = value;
  });
  if (header !== undefined) out[header.name.toLowerCase()] = header.value;
  return out;
}

/** Connection pools kept per gate (one per set of checked addresses); the oldest is closed past this. */
const MAX_POOLS = 4;

export function createGatedFetch(options: GateOptions): GatedFetch {
  let first: (Error & { code: string }) | undefined;
  let total = 0;
  let gone = false;
  const agents = new Map<string, Agent>();

  function agentFor(
    AgentClass: typeof import("undici").Agent,
    hostname: string,
    addresses: Parameters<typeof pinnedLookup>[1],
  ): Agent {
    const key = `${hostname}|${JSON.stringify(addresses)}`;
    let agent = agents.get(key);
    if (agent === undefined) {
      agent = new AgentClass({
        connect: {
          lookup: pinnedLookup(hostname, addresses),
          timeout: options.connectTimeoutMs,
          rejectUnauthorized: true,
          ...(options.ca === undefined ? {} : { ca: [...options.ca] }),
        },
        // The call's signal bounds every wait; undici's own idle timers would only reword it.
        headersTimeout: 0,
        bodyTimeout: 0,
        // A call's SSE answer stays open while the client POSTs its reply to a server request.
        connections: 4,
      });
      agents.set(key, agent);
      if (agents.size > MAX_POOLS) {
        const [oldKey, old] = agents.entries().next().value as [string, Agent];
        agents.delete(oldKey);
        void old.close().catch((closing: unknown) => void closing); // its requests are over or failing
      }
    }
    return agent;
  }
  const fail = (error: Error & { code: string }) => {
    if (first === undefined) {
      first = error;
      options.onFailure?.(error);
    }
    return error;
  };

  async function gatedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
    const method = (init?.method ?? "GET").toUpperCase();
    // The standalone server→client stream: not opened. 405 is what the transport expects from a
    // server that offers none, so it carries on without it.
    if (method === "GET") return new Response(null, { status: 405 });
    let url: URL;
    try {
      url = parseUrl(String(input));
      const dest = checkDestination(url, {
        namespace: options.namespace,
        rules: [options.rule],
        hosts: options.hosts,
        allowance: options.allowance,
      });
      const addresses = await resolveChecked(dest, options.resolver, options.allowance);
      const agent = agentFor((await loadUndici()).Agent, dest.hostname, addresses);
      const { signal } = options.limits();
      const signals = [signal, ...(init?.signal ? [init.signal] : [])];
      const headers = requestHeaders(init, options.header);
      const res: Dispatcher.ResponseData = await agent.request({
        origin: dest.url.origin,
        path: `${dest.url.pathname}${dest.url.search}`,
        method: method as "POST",
        headers,
        body: typeof init?.body === "string" ? init.body : null,
        signal: AbortSignal.any(signals),
      });
      if (res.statusCode === 404 && headers["mcp-session-id"] !== undefined) gone = true;
      if (res.statusCode === 401) {
        res.body.destroy();
        throw remoteError(
          "AIRLOCK_REMOTE_UNAUTHORIZED",
          `the remote MCP server ${dest.hostname} answered 401: the credentials Airlock sent (a header secret, an OAuth connection) are missing or not accepted`,
          { host: dest.hostname },
        );
      }
      if (REDIRECTS.has(res.statusCode)) {
        res.body.destroy();
        const location = String(res.headers.location ?? "");
        let target = "an unparsable location";
        try {
          target = new URL(location, dest.url).host;
        } catch (unparsable) {
          void unparsable; // the message says the location did not parse
        }
        throw remoteError(
          "AIRLOCK_REMOTE_REDIRECT_REFUSED",
          `the remote MCP server ${dest.hostname} answered ${res.statusCode} toward ${target}; redirects are never followed`,
          { host: dest.hostname, status: res.statusCode, target },
        );
      }
      return new Response(countedBody(res.body, dest.hostname), {
        status: res.statusCode,
        headers: toHeaders(res.headers),
      });
    } catch (error) {
      throw fail(classify(error, String(input)));
    }
  }

  function countedBody(body: Dispatcher.ResponseData["body"], host: string): ReadableStream<Uint8Array> {
    body.on("error", (err: unknown) => void err); // read errors surface through the iterator below
    const iterator = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done === true) {
            controller.close();
            return;
          }
          total += next.value.byteLength;
          const { maxBytes } = options.limits();
          if (total > maxBytes) {
            body.destroy();
            controller.error(
              fail(
                remoteError(
                  "AIRLOCK_REMOTE_RESPONSE_TOO_LARGE",
                  `the remote MCP server ${host} sent more than ${maxBytes} bytes; the answer was aborted`,
                  { host, limit: maxBytes },
                ),
              ),
            );
            return;
          }
          controller.enqueue(new Uint8Array(next.value));
        } catch (error) {
          controller.error(fail(classify(error, host)));
        }
      },
      cancel() {
        body.destroy();
      },
    });
  }

  return {
    fetch: gatedFetch,
    failure: () => first,
    received: () => total,
    startOperation() {
      total = 0;
    },
    sessionGone: () => gone,
    async close() {
      const closing = [...agents.values()].map((a) =>
        a.destroy().catch((alreadyClosed: unknown) => void alreadyClosed),
      );
      agents.clear();
      await Promise.all(closing);
    },
  };
}

/** Whatever a request threw, as an AirlockError (gate refusals keep their AIRLOCK_FETCH_* code). */
function classify(error: unknown, where: string): Error & { code: string } {
  if (hasCode(error) && error.code.startsWith("AIRLOCK_")) return error as Error & { code: string };
  let host = where;
  try {
    host = new URL(where).host;
  } catch (notUrl) {
    void notUrl; // `where` is already a host name
  }
  const reason = hasCode(error) ? error.code : error instanceof Error ? error.name : "unknown";
  return new AirlockError(
    "AIRLOCK_REMOTE_UNREACHABLE",
    `the remote MCP server ${host} could not be reached (${reason})`,
    { status: 502, details: { host, reason }, cause: error },
  );
}
