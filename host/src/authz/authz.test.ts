// The authorization server attacked in-process (app.request, no socket): metadata, registration
// limits, the consent round trip in an operator's console session, and every refusal the brief
// names — PKCE mismatch, a replayed code, an unknown redirect URI, a missing or foreign
// resource, a forged decision, a reused refresh token, revocation, a token for another agent's
// MCP URL. Each refusal asserts its AIRLOCK_AUTHZ_* code, that the host still answers, and that
// no token, code or canary secret ends up in the audit log.
import { createHash, randomBytes } from "node:crypto";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAdminApi } from "../api/app.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../api/test-support.ts";

const ORIGIN = "http://localhost";
const REDIRECT = "http://127.0.0.1:9/callback";
const CANARY = "canary-authz-51c0-secret";
let f: SurfaceFixture;
let app: Hono;
let cookie: string;
const issued: string[] = [];

beforeAll(async () => {
  f = await createSurfaceFixture();
  app = createAdminApi(f.host, { log: () => undefined });
  await f.host.setSecrets("alpha", { api_key: CANARY });
  const res = await app.request("/admin/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: f.operatorToken }),
  });
  cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
});
afterAll(async () => {
  await f?.close();
});

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

async function register(redirectUris: unknown = [REDIRECT]) {
  const res = await app.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Desk client", redirect_uris: redirectUris }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

function authorizeUrl(clientId: string, challenge: string, over: Record<string, string | null> = {}) {
  const params: Record<string, string | null> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st-42",
    resource: `${ORIGIN}/mcp/alpha`,
    ...over,
  };
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null) q.set(k, v);
  return `/oauth/authorize?${q}`;
}

/** GET the consent page in the session and POST the decision; answers the redirect's query. */
async function consent(url: string, decision = "approve", origin = ORIGIN) {
  const page = await app.request(url, { headers: { cookie } });
  expect(page.status).toBe(200);
  const html = await page.text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
  const res = await app.request("/oauth/authorize", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin },
    body: new URLSearchParams({ request: field("request"), csrf: field("csrf"), decision }).toString(),
  });
  return { res, query: new URL(res.headers.get("location") ?? "http://x/").searchParams };
}

async function tokensFor(agent = "alpha") {
  const client = (await register()).body;
  const { verifier, challenge } = pkce();
  const { query } = await consent(
    authorizeUrl(client.client_id ?? "", challenge, { resource: `${ORIGIN}/mcp/${agent}` }),
  );
  const res = await app.request(
    "/oauth/token",
    form({
      grant_type: "authorization_code",
      code: query.get("code") ?? "",
      code_verifier: verifier,
      client_id: client.client_id ?? "",
      redirect_uri: REDIRECT,
    }),
  );
  const body = (await res.json()) as Record<string, string>;
  issued.push(body.access_token ?? "", body.refresh_token ?? "", query.get("code") ?? "");
  return { client, body, status: res.status };
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};
async function mcp(agent: string, token: string) {
  return app.request(`/mcp/${agent}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify(initialize),
  });
}

async function healthyAndClean() {
  expect((await app.request("/healthz")).status).toBe(200);
  const audit = JSON.stringify(await f.host.queryAudit({ kind: "admin", limit: 1000 }));
  expect(audit).not.toContain(CANARY);
  for (const secret of issued.filter((s) => s !== "")) expect(audit).not.toContain(secret);
}

describe("metadata and registration", () => {
  test("names this host as the agent's authorization server, with PKCE S256 and iss", async () => {
    const pr = (await (
      await app.request("/.well-known/oauth-protected-resource/mcp/alpha")
    ).json()) as Record<string, unknown>;
    expect(pr).toMatchObject({ resource: `${ORIGIN}/mcp/alpha`, authorization_servers: [ORIGIN] });
    const as = (await (await app.request("/.well-known/oauth-authorization-server")).json()) as Record<
      string,
      unknown
    >;
    expect(as).toMatchObject({
      issuer: ORIGIN,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    });
  });

  test("refuses redirect URIs that are plain http off loopback, carry a fragment or are missing", async () => {
    for (const uris of [
      ["http://evil.example/cb"],
      ["https://app.example/cb#x"],
      [],
      "https://x.example",
      ["javascript:alert(1)"],
    ]) {
      const { status, body } = await register(uris);
      expect(status, JSON.stringify(uris)).toBe(400);
      expect(body).toMatchObject({
        error: "invalid_client_metadata",
        airlock_code: "AIRLOCK_AUTHZ_INVALID_CLIENT_METADATA",
      });
    }
    expect((await register(["https://app.example/cb", "http://[::1]:8080/cb"])).status).toBe(201);
    await healthyAndClean();
  });
});

describe("authorization and consent", () => {
  test("sends a browser without a console session to sign in and back", async () => {
    const client = (await register()).body;
    const url = authorizeUrl(client.client_id ?? "", pkce().challenge);
    const res = await app.request(url);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/admin?next=${encodeURIComponent(url)}`);
  });

  test("shows the client, its redirect URI, the agent and its enabled tools under a strict CSP", async () => {
    const client = (await register()).body;
    const res = await app.request(authorizeUrl(client.client_id ?? "", pkce().challenge), {
      headers: { cookie },
    });
    const html = await res.text();
    for (const text of ["Desk client", REDIRECT, "agent alpha", "kit:echo", "Approve", "Deny"])
      expect(html).toContain(text);
    expect(html).not.toContain("kit:keyed");
    expect(html).not.toContain("<script");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("form-action 'self' http://127.0.0.1:9");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  test("answers an unknown redirect URI or client on its own page, never redirecting", async () => {
    const client = (await register()).body;
    const res = await app.request(
      authorizeUrl(client.client_id ?? "", pkce().challenge, { redirect_uri: "http://127.0.0.1:9/other" }),
      { headers: { cookie } },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("x-airlock-error")).toBe("AIRLOCK_AUTHZ_REDIRECT_URI_MISMATCH");
    const unknown = await app.request(authorizeUrl("alc_nobody", pkce().challenge), { headers: { cookie } });
    expect(unknown.headers.get("x-airlock-error")).toBe("AIRLOCK_AUTHZ_UNKNOWN_CLIENT");
    await healthyAndClean();
  });

  test("sends back invalid_target for a missing resource or one that is not an agent's MCP URL", async () => {
    const client = (await register()).body;
    for (const resource of [
      null,
      "https://elsewhere.example/mcp/alpha",
      `${ORIGIN}/mcp/nobody`,
      `${ORIGIN}/api/tokens`,
    ]) {
      const res = await app.request(authorizeUrl(client.client_id ?? "", pkce().challenge, { resource }), {
        headers: { cookie },
      });
      const q = new URL(res.headers.get("location") ?? "http://x/").searchParams;
      expect(q.get("error"), String(resource)).toBe("invalid_target");
      expect(q.get("airlock_code")).toBe("AIRLOCK_AUTHZ_INVALID_RESOURCE");
      expect(q.get("state")).toBe("st-42");
    }
    const plain = await app.request(authorizeUrl(client.client_id ?? "", "short", {}), {
      headers: { cookie },
    });
    expect(new URL(plain.headers.get("location") ?? "http://x/").searchParams.get("airlock_code")).toBe(
      "AIRLOCK_AUTHZ_INVALID_REQUEST",
    );
  });

  test("Deny sends access_denied with the state; a decision from another origin or without the CSRF token is refused", async () => {
    const client = (await register()).body;
    const denied = await consent(authorizeUrl(client.client_id ?? "", pkce().challenge), "deny");
    expect(denied.res.status).toBe(303);
    expect(denied.query.get("error")).toBe("access_denied");
    expect(denied.query.get("state")).toBe("st-42");
    expect(denied.query.get("iss")).toBe(ORIGIN);
    expect(denied.query.get("code")).toBeNull();
    const foreign = await consent(
      authorizeUrl(client.client_id ?? "", pkce().challenge),
      "approve",
      "https://evil.example",
    );
    expect(foreign.res.status).toBe(403);
    expect(foreign.res.headers.get("x-airlock-error")).toBe("AIRLOCK_AUTHZ_CONSENT_FORM_INVALID");
    const forged = await app.request("/oauth/authorize", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: ORIGIN },
      body: "request=x&csrf=y&decision=approve",
    });
    expect(forged.headers.get("x-airlock-error")).toBe("AIRLOCK_AUTHZ_CONSENT_FORM_INVALID");
    const denials = (await f.host.queryAudit({ kind: "admin", limit: 500 })).filter(
      (e) => e.error === "AIRLOCK_AUTHZ_ACCESS_DENIED",
    );
    expect(denials.length).toBeGreaterThan(0);
    await healthyAndClean();
  });
});

describe("tokens", () => {
  test("a code becomes an access token for that agent's MCP URL only, refused at the admin API", async () => {
    const { body, status } = await tokensFor("alpha");
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect(body.access_token).toMatch(/^alk_oat_/);
    expect((await mcp("alpha", body.access_token ?? "")).status).toBe(200);
    const other = await mcp("beta", body.access_token ?? "");
    expect(other.status).toBe(401);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_AUTHZ_WRONG_AUDIENCE",
    );
    expect(other.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const api = await app.request("/api/instances/alpha/tools", {
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    expect(api.status).toBe(401);
    await healthyAndClean();
  });

  test("refuses a PKCE mismatch and a replayed code, which revokes what the code gave", async () => {
    const client = (await register()).body;
    const { verifier, challenge } = pkce();
    const exchange = (code: string, v: string) =>
      app.request(
        "/oauth/token",
        form({
          grant_type: "authorization_code",
          code,
          code_verifier: v,
          client_id: client.client_id ?? "",
          redirect_uri: REDIRECT,
        }),
      );
    const first = (await consent(authorizeUrl(client.client_id ?? "", challenge))).query.get("code") ?? "";
    const wrong = await exchange(first, pkce().verifier);
    expect(await wrong.json()).toMatchObject({
      error: "invalid_grant",
      airlock_code: "AIRLOCK_AUTHZ_PKCE_MISMATCH",
    });
    const second = (await consent(authorizeUrl(client.client_id ?? "", challenge))).query.get("code") ?? "";
    const ok = (await (await exchange(second, verifier)).json()) as Record<string, string>;
    issued.push(first, second, ok.access_token ?? "", ok.refresh_token ?? "");
    expect((await mcp("alpha", ok.access_token ?? "")).status).toBe(200);
    const replay = await exchange(second, verifier);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({
      error: "invalid_grant",
      airlock_code: "AIRLOCK_AUTHZ_CODE_REUSED",
    });
    const after = await mcp("alpha", ok.access_token ?? "");
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_AUTHZ_TOKEN_INVALID",
    );
    await healthyAndClean();
  });

  test("rotates refresh tokens; reusing an old one revokes the family", async () => {
    const { client, body } = await tokensFor("alpha");
    const refresh = (token: string) =>
      app.request(
        "/oauth/token",
        form({ grant_type: "refresh_token", refresh_token: token, client_id: client.client_id ?? "" }),
      );
    const next = (await (await refresh(body.refresh_token ?? "")).json()) as Record<string, string>;
    issued.push(next.access_token ?? "", next.refresh_token ?? "");
    expect(next.refresh_token).not.toBe(body.refresh_token);
    expect((await mcp("alpha", next.access_token ?? "")).status).toBe(200);
    const reuse = await refresh(body.refresh_token ?? "");
    expect(await reuse.json()).toMatchObject({
      error: "invalid_grant",
      airlock_code: "AIRLOCK_AUTHZ_REFRESH_REUSED",
    });
    expect((await mcp("alpha", next.access_token ?? "")).status).toBe(401);
    expect(await (await refresh(next.refresh_token ?? "")).json()).toMatchObject({
      airlock_code: "AIRLOCK_AUTHZ_INVALID_GRANT",
    });
    await healthyAndClean();
  });

  test("revocation (RFC 7009) and the operator's revoke both end a grant", async () => {
    const a = await tokensFor("alpha");
    expect(
      (
        await app.request(
          "/oauth/revoke",
          form({ token: a.body.refresh_token ?? "", client_id: a.client.client_id ?? "" }),
        )
      ).status,
    ).toBe(200);
    expect((await mcp("alpha", a.body.access_token ?? "")).status).toBe(401);
    const b = await tokensFor("alpha");
    const list = (await (
      await app.request("/api/instances/alpha/oauth-grants", {
        headers: { authorization: `Bearer ${f.operatorToken}` },
      })
    ).json()) as { grants: Array<{ id: string; revokedAt: string | null; clientName: string }> };
    const active = list.grants.filter((g) => g.revokedAt === null);
    expect(active.length).toBeGreaterThan(0);
    expect(JSON.stringify(list)).not.toContain("alk_o");
    for (const g of active) {
      const res = await app.request(`/api/instances/alpha/oauth-grants/${g.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${f.operatorToken}` },
      });
      expect(res.status).toBe(200);
    }
    expect((await mcp("alpha", b.body.access_token ?? "")).status).toBe(401);
    const unknown = await app.request("/api/instances/alpha/oauth-grants/alg_nothing", {
      method: "DELETE",
      headers: { authorization: `Bearer ${f.operatorToken}` },
    });
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_AUTHZ_UNKNOWN_GRANT",
    );
    expect((await app.request("/oauth/token", form({ grant_type: "password" }))).status).toBe(400);
    await healthyAndClean();
  });
});
