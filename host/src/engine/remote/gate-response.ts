// What a gated fetch (gate-fetch.ts) makes of a remote MCP server's answer: a refusal of the
// answers Airlock never follows (401, redirects), a body counted as it streams and cut at the
// operation's byte cap, the response headers, and any failure as an AirlockError.
// Invariants: a refused answer's body is destroyed unread; a redirect's error names the target
// host only, never the full location; a body past the cap is destroyed and fails with
// AIRLOCK_REMOTE_RESPONSE_TOO_LARGE; a gate refusal keeps its AIRLOCK_FETCH_* code, anything else
// becomes AIRLOCK_REMOTE_UNREACHABLE naming the host and the error's code or name only.
import type { IncomingHttpHeaders } from "node:http";
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import type { Dispatcher } from "undici";
import { remoteError } from "./errors.ts";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The bytes an operation received so far, and its cap. */
export interface ByteMeter {
  /** Counts `bytes` more; answers the operation's total. */
  add(bytes: number): number;
  maxBytes(): number;
}

export function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** Throws for an answer Airlock does not take: 401 (credentials refused) and any redirect. */
export function refuseAnswer(res: Dispatcher.ResponseData, dest: { hostname: string; url: URL }): void {
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
}

export function countedBody(
  body: Dispatcher.ResponseData["body"],
  host: string,
  meter: ByteMeter,
  fail: (error: Error & { code: string }) => Error & { code: string },
): ReadableStream<Uint8Array> {
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
        const total = meter.add(next.value.byteLength);
        const maxBytes = meter.maxBytes();
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

/** Whatever a request threw, as an AirlockError (gate refusals keep their AIRLOCK_FETCH_* code). */
export function classify(error: unknown, where: string): Error & { code: string } {
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
