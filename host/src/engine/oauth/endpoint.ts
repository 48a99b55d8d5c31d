// Requests the host itself makes to a provider's endpoints (OAuth token and revocation
// endpoints, OpenAI-compatible model APIs), through the same gate as ctx.fetch: the operator's
// address rules (allowPrivate), DNS answers checked and pinned, no redirects followed, one
// deadline, a capped response body.
// Invariants: nothing here logs or returns a request header or body; a failure is an
// AirlockError whose message names the host only.
import type { ProviderAnswer } from "../../isolation/capabilities/oauth-port.ts";
import type { PrivateAllowance } from "../../isolation/egress/address.ts";
import { checkDestination, parseUrl } from "../../isolation/egress/destination.ts";
import { resolveChecked } from "../../isolation/egress/resolve.ts";
import { classifyFailure, openHop } from "../../isolation/egress/transport.ts";
import type { Resolver } from "../../isolation/egress/types.ts";

export interface EndpointDeps {
  readonly resolver: Resolver;
  readonly allowance: PrivateAllowance;
  readonly ca?: readonly string[] | undefined;
  /** Whole exchange, ms (default 15 000). */
  readonly timeoutMs?: number;
}

/** The status and the body parsed as JSON, or null when it is not JSON (oauth-port.ts). */
export type EndpointAnswer = ProviderAnswer;

const MAX_ANSWER_BYTES = 1024 * 1024;

/** The body as JSON, or null: an answer that is not JSON is judged by its status alone. */
function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

/** POSTs `body` (form or JSON) to `rawUrl`; answers the status and the parsed JSON body. */
export async function postToEndpoint(
  rawUrl: string,
  body: { form: Record<string, string> } | { json: unknown },
  headers: Record<string, string>,
  deps: EndpointDeps,
): Promise<EndpointAnswer> {
  const url = parseUrl(rawUrl);
  const scheme = url.protocol.slice(0, -1) as "http" | "https";
  const port = url.port === "" ? (scheme === "https" ? 443 : 80) : Number(url.port);
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  // The endpoint is its own rule: the address policy still applies, as for any plugin request.
  const dest = checkDestination(url, {
    namespace: "airlock",
    rules: [{ host: hostname, schemes: [scheme], ports: [port] }],
    hosts: undefined,
    allowance: deps.allowance,
  });
  const timeoutMs = deps.timeoutMs ?? 15_000;
  const deadline = AbortSignal.timeout(timeoutMs);
  const payload =
    "form" in body
      ? new TextEncoder().encode(new URLSearchParams(body.form).toString())
      : new TextEncoder().encode(JSON.stringify(body.json));
  try {
    const addresses = await resolveChecked(dest, deps.resolver, deps.allowance);
    const hop = await openHop({
      dest,
      addresses,
      method: "POST",
      headers: {
        "user-agent": "airlock-broker/1",
        accept: "application/json",
        "accept-encoding": "identity",
        "content-type": "form" in body ? "application/x-www-form-urlencoded" : "application/json",
        ...headers,
      },
      body: payload,
      signal: deadline,
      connectTimeoutMs: Math.min(5000, timeoutMs),
      idleTimeoutMs: timeoutMs,
      ca: deps.ca,
    });
    const bytes = await hop.read(MAX_ANSWER_BYTES);
    return { status: hop.status, json: parseJson(bytes) };
  } catch (err) {
    throw classifyFailure(err, dest.hostname, deadline, deadline);
  }
}
