// The `fetch` the MCP client uses toward a remote server: every request goes through the egress
// gate's own checks (host/src/egress: the URL against the plugin's egress rule and the
// operator's host policy, the private/metadata address rules after DNS resolution, a connection
// pinned to the addresses that were checked) and nothing else reaches the network.
// Invariants: a redirect is never followed (AIRLOCK_REMOTE_REDIRECT_REFUSED, naming the target
// host only); a response body is counted as it streams and cut at `maxBytes`
// (AIRLOCK_REMOTE_RESPONSE_TOO_LARGE); no standalone GET stream is opened (answered 405 here,
// without a request: Airlock takes nothing from a remote server outside its own requests); the
// first failure is kept in `failure()` so the caller reports that code, not the MCP client's
// rewording of it; a header value is never part of an error message.
import type { IncomingHttpHeaders } from "node:http";
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import type { EgressRule } from "@airlock/sdk/manifest";
import { Agent, type Dispatcher } from "undici";
import type { PrivateAllowance } from "../egress/address.ts";
import { checkDestination, parseUrl } from "../egress/destination.ts";
import { pinnedLookup, resolveChecked } from "../egress/resolve.ts";
import type { HostPolicy, Resolver } from "../egress/types.ts";
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
  /** The byte cap on each response body. */
  maxBytes: number;
  connectTimeoutMs: number;
  /** Ends every request in flight (the call's deadline or cancellation). */
  signal: AbortSignal;
  /** Told of the first failure (a body cut at the cap fails a stream the client may not surface). */
  onFailure?: (error: Error & { code: string }) => void;
}

export interface GatedFetch {
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /** The first refusal or failure seen, as an AirlockError. */
  failure(): (Error & { code: string }) | undefined;
  /** Bytes received over all responses. */
  received(): number;
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

export function createGatedFetch(options: GateOptions): GatedFetch {
  let first: (Error & { code: string }) | undefined;
  let total = 0;
  const agents = new Set<Agent>();
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
      const agent = new Agent({
        connect: {
          lookup: pinnedLookup(dest.hostname, addresses),
          timeout: options.connectTimeoutMs,
          rejectUnauthorized: true,
          ...(options.ca === undefined ? {} : { ca: [...options.ca] }),
        },
        // The call's signal bounds every wait; undici's own idle timers would only reword it.
        headersTimeout: 0,
        bodyTimeout: 0,
        connections: 1,
      });
      agents.add(agent);
      const signals = [options.signal, ...(init?.signal ? [init.signal] : [])];
      const res: Dispatcher.ResponseData = await agent.request({
        origin: dest.url.origin,
        path: `${dest.url.pathname}${dest.url.search}`,
        method: method as "POST",
        headers: requestHeaders(init, options.header),
        body: typeof init?.body === "string" ? init.body : null,
        signal: AbortSignal.any(signals),
      });
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
          if (total > options.maxBytes) {
            body.destroy();
            controller.error(
              fail(
                remoteError(
                  "AIRLOCK_REMOTE_RESPONSE_TOO_LARGE",
                  `the remote MCP server ${host} sent more than ${options.maxBytes} bytes; the answer was aborted`,
                  { host, limit: options.maxBytes },
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
    async close() {
      const closing = [...agents].map((a) =>
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
