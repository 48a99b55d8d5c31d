// The host's own OAuth 2.1 authorization server, mounted on the admin server beside /mcp:
// - GET /.well-known/oauth-authorization-server — RFC 8414 metadata (issuer: the public URL
//   when the operator set one, else the request's origin — config.ts externalBase);
// - POST /oauth/register — dynamic client registration (RFC 7591, public clients);
// - GET /oauth/authorize — checks the request, sends a browser without a console session to
//   sign in (/admin?next=…, which comes back here), then shows the consent page;
// - POST /oauth/authorize — the operator's decision: a code, or `access_denied`, sent to the
//   client's redirect URI with `state` and `iss` (RFC 9207);
// - POST /oauth/token — authorization_code (PKCE S256) and refresh_token (rotating) grants;
// - POST /oauth/revoke — RFC 7009.
// The metadata, register, token and revoke endpoints answer CORS for any origin without
// credentials (cors.ts); /oauth/authorize answers none.
// Invariants: a decision is taken only from this host's (public) origin (Origin header), in the signed-in
// operator's console session (its CSRF token in the form), on a request sealed by the GET for
// that session less than CONSENT_TTL_MS ago; OAuth errors carry `error` per spec and the stable
// code in `airlock_code` and `error_description`; every step and refusal is audited.
import { hasCode } from "@airlock/sdk/errors";
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AirlockHost } from "../../../contracts/host.ts";
import { openSession, readCookie, SESSION_COOKIE } from "../console/session.ts";
import { checkAuthorizationRequest, registerClient } from "./clients.ts";
import {
  type AuthzConfig,
  authzAudit,
  authzConfig,
  externalBase,
  externalOrigin,
  REGISTER_REFILL_MS,
} from "./config.ts";
import { consentPage, errorPage, pageHeaders } from "./consent-page.ts";
import { mountPublicCors } from "./cors.ts";
import { AUTHZ_ERRORS, type AuthzErrorCode, oauthErrorBody } from "./errors.ts";
import { exchangeCode, issueCode, refreshTokens, revokeToken } from "./grants.ts";
import { checkRegistrationLimits, RegistrationBuckets, sourceAddress } from "./register-limits.ts";

export const AS_METADATA_PATH = "/.well-known/oauth-authorization-server";
const CONSENT_PURPOSE = "airlock-oauth-consent";
const CONSENT_TTL_MS = 10 * 60 * 1000;
const MAX_FORM_BYTES = 16 * 1024;
/** Codes answered with their own status (429, 503, 500) rather than the OAuth endpoints' 400. */
const OWN_STATUS = new Set<AuthzErrorCode>([
  "AIRLOCK_AUTHZ_REGISTRATION_RATE_LIMITED",
  "AIRLOCK_AUTHZ_TOO_MANY_CLIENTS",
  "AIRLOCK_AUTHZ_CONFIG_INVALID",
]);

interface SealedConsent {
  c: string;
  r: string;
  s: string | null;
  x: string;
  o: string;
  a: string;
  t: string;
  e: number;
}

export function authorizationServerMetadata(origin: string): Record<string, unknown> {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/oauth/authorize`,
    token_endpoint: `${origin}/oauth/token`,
    registration_endpoint: `${origin}/oauth/register`,
    revocation_endpoint: `${origin}/oauth/revoke`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    authorization_response_iss_parameter_supported: true,
    scopes_supported: [],
  };
}

function oauthError(c: Context, code: AuthzErrorCode, message: string): Response {
  const status = (OWN_STATUS.has(code) ? AUTHZ_ERRORS[code].status : 400) as ContentfulStatusCode;
  const headers: Record<string, string> = { "cache-control": "no-store", pragma: "no-cache" };
  if (code === "AIRLOCK_AUTHZ_REGISTRATION_RATE_LIMITED")
    headers["retry-after"] = String(Math.ceil(REGISTER_REFILL_MS / 1000));
  return c.json(oauthErrorBody(code, message), status, headers);
}

/** Runs an endpoint, answering an AIRLOCK_AUTHZ_* failure as an OAuth error body. */
async function oauthJson(c: Context, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (hasCode(error) && error.code.startsWith("AIRLOCK_AUTHZ_"))
      return oauthError(c, error.code as AuthzErrorCode, error.message.replace(/ \(AIRLOCK_\w+\)$/, ""));
    throw error;
  }
}

async function readForm(c: Context): Promise<Record<string, string> | null> {
  if (!(c.req.header("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) return null;
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_FORM_BYTES) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(text)) if (!Object.hasOwn(out, k)) out[k] = v;
  return out;
}

function backTo(redirectUri: string, origin: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  url.searchParams.set("iss", origin);
  return url.href;
}

async function pageRefusal(
  host: AirlockHost,
  c: Context,
  code: AuthzErrorCode,
  message: string,
  agent: string | null,
) {
  await authzAudit(host, "authorize", code, agent, { method: c.req.method });
  const status = AUTHZ_ERRORS[code].status as 400 | 403;
  return c.body(errorPage("Cannot connect this client", message, code), status, {
    ...pageHeaders(),
    "x-airlock-error": code,
  });
}

async function showConsent(host: AirlockHost, config: AuthzConfig, c: Context): Promise<Response> {
  const origin = externalBase(host, c.req.url);
  const params = Object.fromEntries(new URL(c.req.url).searchParams);
  const check = await checkAuthorizationRequest(host, params, origin);
  if (!check.ok && !check.redirect) return pageRefusal(host, c, check.code, check.message, null);
  if (!check.ok) {
    await authzAudit(host, "authorize", check.code, null, {});
    const error = oauthErrorBody(check.code, check.message);
    return c.redirect(backTo(check.redirectUri, origin, { ...error, state: check.state }), 302);
  }
  let session = null;
  try {
    session = await openSession(host, readCookie(c.req.header("cookie"), SESSION_COOKIE));
  } catch (error) {
    if (!hasCode(error)) throw error;
    session = null; // an expired or signed-out session signs in again, like none at all
  }
  const { request } = check;
  if (session === null) {
    const here = new URL(c.req.url);
    return c.redirect(`/admin?next=${encodeURIComponent(here.pathname + here.search)}`, 302);
  }
  const sealed: SealedConsent = {
    c: request.client.id,
    r: request.redirectUri,
    s: request.state,
    x: request.challenge,
    o: request.resource,
    a: request.agent,
    t: session.record.id,
    e: Date.now() + CONSENT_TTL_MS,
  };
  const body = consentPage({
    clientName: request.client.name,
    clientId: request.client.id,
    redirectUri: request.redirectUri,
    agent: request.agent,
    resource: request.resource,
    tools: await host.listAgentTools(request.agent),
    accessTtlSeconds: Math.floor(config.accessTtlMs / 1000),
    sealedRequest: host.seal(CONSENT_PURPOSE, sealed),
    csrf: session.csrf,
  });
  await authzAudit(host, "authorize", null, request.agent, { clientId: request.client.id, shown: "consent" });
  return c.body(body, 200, pageHeaders(new URL(request.redirectUri).origin));
}

async function decide(host: AirlockHost, config: AuthzConfig, c: Context): Promise<Response> {
  const origin = externalBase(host, c.req.url);
  const refuse = (why: string) =>
    pageRefusal(host, c, "AIRLOCK_AUTHZ_CONSENT_FORM_INVALID", `this decision was refused: ${why}`, null);
  if (c.req.header("origin") !== externalOrigin(host, c.req.url))
    return refuse("it did not come from this host's consent page");
  const form = await readForm(c);
  if (form === null) return refuse("it is not this page's form");
  let session = null;
  try {
    session = await openSession(host, readCookie(c.req.header("cookie"), SESSION_COOKIE));
  } catch (error) {
    if (!hasCode(error)) throw error;
  }
  if (session === null) return refuse("the console session is over; sign in again");
  const sealed = host.unseal(CONSENT_PURPOSE, form.request ?? "") as SealedConsent | null;
  if (
    form.csrf !== session.csrf ||
    sealed === null ||
    sealed.t !== session.record.id ||
    !(sealed.e > Date.now())
  ) {
    return refuse("the form is expired or belongs to another session; open the authorization link again");
  }
  const check = await checkAuthorizationRequest(
    host,
    {
      client_id: sealed.c,
      redirect_uri: sealed.r,
      response_type: "code",
      code_challenge_method: "S256",
      code_challenge: sealed.x,
      resource: sealed.o,
      ...(sealed.s === null ? {} : { state: sealed.s }),
    },
    origin,
  );
  if (!check.ok) return pageRefusal(host, c, check.code, check.message, null);
  const { request } = check;
  if (form.decision !== "approve") {
    const message = "the operator denied this client";
    await authzAudit(host, "consent", "AIRLOCK_AUTHZ_ACCESS_DENIED", request.agent, {
      clientId: request.client.id,
    });
    const error = oauthErrorBody("AIRLOCK_AUTHZ_ACCESS_DENIED", message);
    return c.redirect(backTo(request.redirectUri, origin, { ...error, state: request.state }), 303);
  }
  const code = await issueCode(host, config, {
    clientId: request.client.id,
    clientName: request.client.name,
    redirectUri: request.redirectUri,
    resource: request.resource,
    agent: request.agent,
    challenge: request.challenge,
  });
  return c.redirect(backTo(request.redirectUri, origin, { code, state: request.state }), 303);
}

export function mountAuthorizationServer(
  app: Hono,
  host: AirlockHost,
  config: AuthzConfig = authzConfig(),
): void {
  const buckets = new RegistrationBuckets(config.registerBurst, config.registerRefillMs);
  mountPublicCors(app, [AS_METADATA_PATH, "/oauth/register", "/oauth/token", "/oauth/revoke"]);
  app.get(AS_METADATA_PATH, (c) => c.json(authorizationServerMetadata(externalBase(host, c.req.url))));
  app.post("/oauth/register", (c) =>
    oauthJson(c, async () => {
      await checkRegistrationLimits(host, config, buckets, sourceAddress(c));
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        body = null;
      }
      return c.json(await registerClient(host, body), 201, { "cache-control": "no-store" });
    }),
  );
  app.get("/oauth/authorize", (c) => showConsent(host, config, c));
  app.post("/oauth/authorize", (c) => decide(host, config, c));
  app.post("/oauth/token", (c) =>
    oauthJson(c, async () => {
      const form = await readForm(c);
      if (form === null)
        return oauthError(c, "AIRLOCK_AUTHZ_INVALID_REQUEST", "send an urlencoded form body");
      let tokens: unknown;
      if (form.grant_type === "authorization_code") tokens = await exchangeCode(host, config, form);
      else if (form.grant_type === "refresh_token") tokens = await refreshTokens(host, config, form);
      else {
        await authzAudit(host, "token", "AIRLOCK_AUTHZ_UNSUPPORTED_GRANT_TYPE", null, {});
        return oauthError(
          c,
          "AIRLOCK_AUTHZ_UNSUPPORTED_GRANT_TYPE",
          "grant_type is authorization_code or refresh_token",
        );
      }
      return c.json(tokens, 200, { "cache-control": "no-store", pragma: "no-cache" });
    }),
  );
  app.post("/oauth/revoke", (c) =>
    oauthJson(c, async () => {
      const form = await readForm(c);
      if (form === null || (form.token ?? "") === "") {
        await authzAudit(host, "revoke", "AIRLOCK_AUTHZ_INVALID_REQUEST", null, {});
        return oauthError(
          c,
          "AIRLOCK_AUTHZ_INVALID_REQUEST",
          "send the token to revoke in an urlencoded form",
        );
      }
      await revokeToken(host, form.token ?? "", form.client_id ?? "");
      return c.body(null, 200, { "cache-control": "no-store" });
    }),
  );
}
