import type { EgressRule } from "@airlock/sdk/manifest";
import type { Dispatcher } from "undici";
import type { PrivateAllowance } from "../../isolation/egress/address.ts";
import { checkDestination, parseUrl } from "../../isolation/egress/destination.ts";
import { resolveChecked } from "../../isolation/egress/resolve.ts";
import type { HostPolicy, Resolver } from "../../isolation/egress/types.ts";
import { loadUndici } from "../../isolation/egress/undici.ts";
import { createGatePools } from "./gate-pools.ts";
import { type ByteMeter, classify, countedBody, refuseAnswer, toHeaders } from "./gate-response.ts";

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
  let gone = false;
  const pools = createGatePools(options);
  const meter: ByteMeter = {
    add: (bytes) => {
      total += bytes;
      return total;
    },
    maxBytes: () => options.limits().maxBytes,
  };

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
      const agent = pools.agentFor((await loadUndici()).Agent, dest.hostname, addresses);
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
      refuseAnswer(res, dest);
      return new Response(countedBody(res.body, dest.hostname, meter, fail), {
        status: res.statusCode,
        headers: toHeaders(res.headers),
      });
    } catch (error) {
      throw fail(classify(error, String(input)));
    }
  }

  return {
    fetch: gatedFetch,
    failure: () => first,
    received: () => total,
    startOperation() {
      total = 0;
    },
    sessionGone: () => gone,
    close: () => pools.close(),
  };
}
