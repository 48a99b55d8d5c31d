// One ctx.fetch request from start to end: validate, check the destination and the secret
// bindings, then for each hop resolve → check → connect pinned → follow or read.
// Invariants: every refusal happens before a connection to the refused target is opened;
// every redirect target goes through the same checks as the first URL (a refusal there is
// AIRLOCK_FETCH_REDIRECT_REFUSED with the underlying code in details.reason); one deadline
// covers resolution, all hops and the body; the trace records what the audit may show
// (host, port, method, status, bytes, redirects) and nothing else.
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import type { CallGrant } from "../bridge/types.ts";
import type { PrivateAllowance } from "./address.ts";
import {
  checkDestination,
  type Destination,
  type DestinationContext,
  hostMatches,
  parseUrl,
} from "./destination.ts";
import { fetchError } from "./errors.ts";
import { followRedirect, type RedirectedRequest, redirectLocation } from "./redirects.ts";
import { isValidHeaderValue, prepareRequest } from "./request-init.ts";
import { resolveChecked } from "./resolve.ts";
import { assertSecretsBound, injectedHeaders, loadSecrets, type Redactor, redactor } from "./secrets.ts";
import { classifyFailure, openHop } from "./transport.ts";
import type { FetchLimits, FetchResult, HostPolicy, Resolver, SecretSource } from "./types.ts";

/** The host's OAuth broker as the gate sees it: a fresh access token, or undefined when not connected. */
export type BearerSource = (grant: CallGrant, provider: string) => Promise<string | undefined>;

export interface ExchangeDeps {
  readonly secrets: SecretSource;
  /** Answers init.oauth; without it every init.oauth is refused as not connected. */
  readonly bearer?: BearerSource;
  readonly resolver: Resolver;
  readonly allowance: PrivateAllowance;
  readonly hosts: HostPolicy | undefined;
  readonly limits: FetchLimits;
  readonly ca: readonly string[] | undefined;
}

/** What the audit entry of a request may say. Filled in as the request progresses. */
export interface ExchangeTrace {
  host: string | null;
  port: number | null;
  method: string | null;
  status: number | null;
  bytes: number;
  redirects: number;
  finalHost: string | null;
  /** The OAuth provider whose bearer was asked for (init.oauth). */
  oauth: string | null;
}

export const USER_AGENT = "airlock-fetch/1";

function redirectRefused(err: unknown, target: URL | null): unknown {
  if (!hasCode(err) || !err.code.startsWith("AIRLOCK_FETCH_")) return err;
  return fetchError(
    "AIRLOCK_FETCH_REDIRECT_REFUSED",
    `a redirect was refused: ${err.message}`,
    { reason: err.code, ...(target === null ? {} : { host: target.hostname }) },
    err,
  );
}

/**
 * A response that carries an injected secret back (in a header or the body, in any spelling the
 * redactor knows) is refused whole: a service that reflects credentials would hand them to the
 * plugin, and a partial scrub could miss a form. Nothing of the response reaches the isolate.
 */
function refuseEcho(
  headers: Record<string, string | string[] | undefined>,
  body: Uint8Array,
  redact: Redactor,
  host: string,
): void {
  const inHeaders = Object.entries(headers).some(
    ([name, v]) =>
      v !== undefined && (redact.found(name) || redact.found(Array.isArray(v) ? v.join(", ") : v)),
  );
  if (inHeaders || redact.found(body)) {
    throw fetchError(
      "AIRLOCK_FETCH_SECRET_ECHOED",
      `the response from ${host} echoes a secret the host injected (in its ${inHeaders ? "headers" : "body"}); it was refused`,
      { host, where: inHeaders ? "headers" : "body" },
    );
  }
}

/** A copy of an AirlockError with injected secret values scrubbed from message and details. */
function scrubbed(err: unknown, redact: Redactor): unknown {
  if (!(err instanceof AirlockError)) return err;
  const message = redact.text(err.message);
  const details = err.details === undefined ? undefined : redact.text(JSON.stringify(err.details));
  if (message === err.message && details === JSON.stringify(err.details)) return err;
  return new AirlockError(err.code, message, {
    status: err.status,
    ...(details === undefined ? {} : { details: JSON.parse(details) as Record<string, unknown> }),
  });
}

/** The provider init.oauth names, checked against the manifest and the destination. */
function oauthProvider(grant: CallGrant, name: string, dest: Destination) {
  const provider = (grant.manifest.oauth ?? []).find((p) => p.name === name);
  if (provider === undefined) {
    throw fetchError(
      "AIRLOCK_FETCH_OAUTH_NOT_DECLARED",
      `OAuth provider "${name}" is not declared by plugin ${grant.namespace}`,
      { provider: name },
    );
  }
  assertOAuthHost(provider.apiHosts, name, dest);
  return provider;
}

function assertOAuthHost(apiHosts: readonly string[], name: string, dest: Destination): void {
  if (!apiHosts.some((h) => hostMatches(h, dest.hostname))) {
    throw fetchError(
      "AIRLOCK_FETCH_OAUTH_HOST_NOT_ALLOWED",
      `the ${name} token goes only to ${apiHosts.join(", ")}, not ${dest.hostname}`,
      { provider: name, host: dest.hostname },
    );
  }
}

async function loadBearer(grant: CallGrant, name: string, deps: ExchangeDeps): Promise<string> {
  const token = await deps.bearer?.(grant, name);
  if (token === undefined || token === "") {
    throw fetchError(
      "AIRLOCK_FETCH_OAUTH_NOT_CONNECTED",
      `${grant.subject === "" ? `agent ${grant.agent}` : `end user ${grant.subject} of agent ${grant.agent}`} has not connected ${name}; call ctx.oauth.requireToken("${name}") first`,
      { provider: name },
    );
  }
  if (!isValidHeaderValue(`Bearer ${token}`)) {
    throw fetchError("AIRLOCK_FETCH_BAD_REQUEST", `the ${name} token cannot be sent in a header`, {
      provider: name,
    });
  }
  return token;
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function responseHeaders(raw: Record<string, string | string[] | undefined>, redact: Redactor) {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name] = redact.text(Array.isArray(value) ? value.join(", ") : value);
  }
  return out;
}

export async function runExchange(
  grant: CallGrant,
  args: readonly unknown[],
  deps: ExchangeDeps,
  trace: ExchangeTrace,
): Promise<FetchResult> {
  const { limits } = deps;
  const req = prepareRequest(args[1], limits.maxRequestBytes);
  trace.method = req.method;
  const ctx: DestinationContext = {
    namespace: grant.namespace,
    rules: grant.egress,
    hosts: deps.hosts,
    allowance: deps.allowance,
  };
  let dest: Destination = checkDestination(parseUrl(args[0]), ctx);
  trace.host = trace.finalHost = dest.hostname;
  trace.port = dest.port;
  assertSecretsBound(req.secretHeaders, dest, grant.declaredSecrets, req.method);
  trace.oauth = req.oauth ?? null;
  const provider = req.oauth === undefined ? undefined : oauthProvider(grant, req.oauth, dest);
  const values = await loadSecrets(req.secretHeaders, deps.secrets, grant.agent);
  const bearer = provider === undefined ? undefined : await loadBearer(grant, provider.name, deps);
  const redact = redactor(bearer === undefined ? values.values() : [...values.values(), bearer]);
  const budget = Math.max(
    1,
    Math.ceil(Math.min(limits.timeoutMs, req.timeoutMs ?? Number.POSITIVE_INFINITY)),
  );
  const deadline = AbortSignal.timeout(budget);
  const signal = AbortSignal.any([deadline, grant.signal]);
  const endsAt = Date.now() + budget;
  let state: RedirectedRequest = { method: req.method, body: req.body, headers: req.headers };

  try {
    for (;;) {
      const addresses = await untilAborted(resolveChecked(dest, deps.resolver, deps.allowance), signal).catch(
        (err: unknown) => {
          throw trace.redirects > 0 && hasCode(err, "AIRLOCK_FETCH_ADDRESS_REFUSED")
            ? redirectRefused(err, dest.url)
            : err;
        },
      );
      const headers: Record<string, string> = {
        "user-agent": USER_AGENT,
        ...Object.fromEntries(state.headers),
      };
      for (const [name, value] of injectedHeaders(req.secretHeaders, values)) headers[name] = value;
      if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
      headers["accept-encoding"] = "identity";
      const hop = await openHop({
        dest,
        addresses,
        method: state.method,
        headers,
        body: state.body,
        signal,
        connectTimeoutMs: Math.min(limits.connectTimeoutMs, budget),
        idleTimeoutMs: Math.max(1, endsAt - Date.now()),
        ca: deps.ca,
      });
      trace.status = hop.status;
      const location = redirectLocation(hop.status, hop.headers);
      if (location === null) {
        // The response cap, narrowed to what the call's isolate can take (grant.maxInboundBytes).
        const body = await hop.read(Math.min(limits.maxResponseBytes, grant.maxInboundBytes ?? Infinity));
        trace.bytes = body.byteLength;
        refuseEcho(hop.headers, body, redact, dest.hostname);
        // node:http only for its status texts, loaded here: at module load it was ≈ 70–90 ms of
        // every host's start (Node's HTTP stack, compiled without the start-up snapshot)
        const { STATUS_CODES } = await import("node:http");
        return {
          status: hop.status,
          statusText: STATUS_CODES[hop.status] ?? "",
          headers: responseHeaders(hop.headers, redact),
          url: redact.text(dest.url.href),
          redirected: trace.redirects > 0,
          body: redact.bytes(body),
        };
      }
      await hop.discard();
      if (trace.redirects >= limits.maxRedirects) {
        throw fetchError(
          "AIRLOCK_FETCH_TOO_MANY_REDIRECTS",
          `more than ${limits.maxRedirects} redirects, starting at ${trace.host}`,
          { limit: limits.maxRedirects, host: trace.host },
        );
      }
      trace.redirects += 1;
      let next: Destination;
      let target: URL | null = null;
      try {
        target = parseUrl(location, dest.url);
        next = checkDestination(target, ctx);
        const following = followRedirect(hop.status, dest.url, next.url, state);
        assertSecretsBound(req.secretHeaders, next, grant.declaredSecrets, following.method);
        if (provider !== undefined) assertOAuthHost(provider.apiHosts, provider.name, next);
        state = following;
      } catch (err) {
        throw redirectRefused(err, target);
      }
      dest = next;
      trace.finalHost = redact.text(dest.hostname);
    }
  } catch (err) {
    throw scrubbed(classifyFailure(err, dest.hostname, deadline, grant.signal), redact);
  }
}
