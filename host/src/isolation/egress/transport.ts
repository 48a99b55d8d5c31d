// One HTTP exchange ("hop") through undici, on a dispatcher of its own whose only way to reach
// the network is the pinned lookup of the addresses the gate checked.
// Invariants: the dispatcher never follows redirects and never decompresses; it is destroyed
// when the hop is read or discarded (no pooled socket outlives the hop); the response body is
// streamed and aborted as soon as it passes maxResponseBytes; failures become AIRLOCK_FETCH_*
// errors whose messages name the host, never a header value.
import type { IncomingHttpHeaders } from "node:http";
import { hasCode } from "@airlock/sdk/errors";
import type { Dispatcher } from "undici";
import type { Destination } from "./destination.ts";
import { fetchError } from "./errors.ts";
import { type CheckedAddress, pinnedLookup } from "./resolve.ts";
import { loadUndici } from "./undici.ts";

export interface HopRequest {
  readonly dest: Destination;
  readonly addresses: readonly CheckedAddress[];
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | null;
  readonly signal: AbortSignal;
  readonly connectTimeoutMs: number;
  /** Upper bound for waiting on headers or on a body chunk (the overall deadline's remainder). */
  readonly idleTimeoutMs: number;
  /** PEM CAs replacing the bundled roots (operator option); undefined keeps Node's defaults. */
  readonly ca: readonly string[] | undefined;
}

export interface Hop {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Reads the whole body, aborting with AIRLOCK_FETCH_RESPONSE_TOO_LARGE past `maxBytes`. */
  read(maxBytes: number): Promise<Uint8Array>;
  /** Drops the body without reading it. */
  discard(): Promise<void>;
}

export async function openHop(req: HopRequest): Promise<Hop> {
  const { dest } = req;
  const { Agent } = await loadUndici();
  const agent = new Agent({
    connect: {
      lookup: pinnedLookup(dest.hostname, req.addresses),
      timeout: req.connectTimeoutMs,
      rejectUnauthorized: true,
      ...(req.ca === undefined ? {} : { ca: [...req.ca] }),
    },
    headersTimeout: req.idleTimeoutMs,
    bodyTimeout: req.idleTimeoutMs,
    connections: 1,
    pipelining: 1,
  });
  // destroy() rejects only when the agent is already destroyed (a second close of this hop),
  // which leaves nothing to release, so that rejection is deliberately absorbed.
  const close = () => agent.destroy().catch((alreadyClosed: unknown) => void alreadyClosed);
  let res: Dispatcher.ResponseData;
  try {
    res = await agent.request({
      origin: dest.url.origin,
      path: `${dest.url.pathname}${dest.url.search}`,
      method: req.method as "GET",
      headers: { ...req.headers },
      body: req.body,
      signal: req.signal,
    });
  } catch (err) {
    await close();
    throw err;
  }
  const body = res.body;
  // Destroying a body we no longer want emits the abort error we caused; it is expected here,
  // and read() reports its own failures through the iterator, so this listener only absorbs it.
  body.on("error", (err: unknown) => void err);
  return {
    status: res.statusCode,
    headers: res.headers,
    async read(maxBytes) {
      try {
        const declared = Number(res.headers["content-length"]);
        if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(dest, maxBytes);
        const chunks: Buffer[] = [];
        let total = 0;
        for await (const chunk of body as AsyncIterable<Buffer>) {
          total += chunk.byteLength;
          if (total > maxBytes) throw tooLarge(dest, maxBytes);
          chunks.push(chunk);
        }
        const out = new Uint8Array(total);
        let at = 0;
        for (const c of chunks) {
          out.set(c, at);
          at += c.byteLength;
        }
        return out;
      } finally {
        body.destroy();
        await close();
      }
    },
    async discard() {
      body.destroy();
      await close();
    },
  };
}

function tooLarge(dest: Destination, limit: number) {
  return fetchError(
    "AIRLOCK_FETCH_RESPONSE_TOO_LARGE",
    `the response from ${dest.hostname} is over the ${limit}-byte limit and was aborted`,
    { host: dest.hostname, limit },
  );
}

const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/**
 * Turns whatever a hop threw into an AIRLOCK_FETCH_* error. `deadline` is the request's own
 * timer and `call` the tool call's signal: whichever fired explains an abort.
 */
export function classifyFailure(err: unknown, host: string, deadline: AbortSignal, call: AbortSignal) {
  if (hasCode(err) && err.code.startsWith("AIRLOCK_")) return err;
  const where = { host };
  if (deadline.aborted || (hasCode(err) && TIMEOUT_CODES.has(err.code))) {
    return fetchError("AIRLOCK_FETCH_TIMEOUT", `the request to ${host} timed out`, where, err);
  }
  if (call.aborted) {
    return fetchError(
      "AIRLOCK_FETCH_ABORTED",
      `the tool call ended during the request to ${host}`,
      where,
      err,
    );
  }
  const reason = hasCode(err) ? err.code : "unknown";
  return fetchError(
    "AIRLOCK_FETCH_NETWORK",
    `the connection to ${host} failed (${reason})`,
    { host, reason },
    err,
  );
}
