// The authorization server's front half attacked in-process (app.request, no socket): its
// metadata, registration limits, and the consent round trip in an operator's console session —
// the sign-in redirect, the page under its CSP, an unknown redirect URI or client (answered on
// the host's page), a missing or foreign resource, Deny, and decisions forged or from another
// origin. Each refusal asserts its AIRLOCK_AUTHZ_* code, that the host still answers, and that no
// secret reaches the audit log.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AuthzHarness, authorizeUrl, ORIGIN, pkce, REDIRECT } from "./test-support.ts";

const h = new AuthzHarness();
beforeAll(() => h.open());
afterAll(() => h.close());

describe("metadata and registration", () => {
  test("names this host as the agent's authorization server, with PKCE S256 and iss", async () => {
    const pr = (await (
      await h.app.request("/.well-known/oauth-protected-resource/mcp/alpha")
    ).json()) as Record<string, unknown>;
    expect(pr).toMatchObject({ resource: `${ORIGIN}/mcp/alpha`, authorization_servers: [ORIGIN] });
    const as = (await (await h.app.request("/.well-known/oauth-authorization-server")).json()) as Record<
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
      const { status, body } = await h.register(uris);
      expect(status, JSON.stringify(uris)).toBe(400);
      expect(body).toMatchObject({
        error: "invalid_client_metadata",
        airlock_code: "AIRLOCK_AUTHZ_INVALID_CLIENT_METADATA",
      });
    }
    expect((await h.register(["https://app.example/cb", "http://[::1]:8080/cb"])).status).toBe(201);
    await h.healthyAndClean();
  });
});

describe("authorization and consent", () => {
  test("sends a browser without a console session to sign in and back", async () => {
    const client = (await h.register()).body;
    const url = authorizeUrl(client.client_id ?? "", pkce().challenge);
    const res = await h.app.request(url);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/admin?next=${encodeURIComponent(url)}`);
  });

  test("shows the client, its redirect URI, the agent and its enabled tools under a strict CSP", async () => {
    const client = (await h.register()).body;
    const res = await h.app.request(authorizeUrl(client.client_id ?? "", pkce().challenge), {
      headers: { cookie: h.cookie },
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
    const client = (await h.register()).body;
    const res = await h.app.request(
      authorizeUrl(client.client_id ?? "", pkce().challenge, { redirect_uri: "http://127.0.0.1:9/other" }),
      { headers: { cookie: h.cookie } },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("x-airlock-error")).toBe("AIRLOCK_AUTHZ_REDIRECT_URI_MISMATCH");
    const unknown = await h.app.request(authorizeUrl("alc_nobody", pkce().challenge), {
      headers: { cookie: h.cookie },
    });
    expect(unknown.headers.get("x-airlock-error")).toBe("AIRLOCK_AUTHZ_UNKNOWN_CLIENT");
    await h.healthyAndClean();
  });

  test("sends back invalid_target for a missing resource or one that is not an agent's MCP URL", async () => {
    const client = (await h.register()).body;
    for (const resource of [
      null,
      "https://elsewhere.example/mcp/alpha",
      `${ORIGIN}/mcp/nobody`,
      `${ORIGIN}/api/tokens`,
    ]) {
      const res = await h.app.request(authorizeUrl(client.client_id ?? "", pkce().challenge, { resource }), {
        headers: { cookie: h.cookie },
      });
      const q = new URL(res.headers.get("location") ?? "http://x/").searchParams;
      expect(q.get("error"), String(resource)).toBe("invalid_target");
      expect(q.get("airlock_code")).toBe("AIRLOCK_AUTHZ_INVALID_RESOURCE");
      expect(q.get("state")).toBe("st-42");
    }
    const plain = await h.app.request(authorizeUrl(client.client_id ?? "", "short", {}), {
      headers: { cookie: h.cookie },
    });
    expect(new URL(plain.headers.get("location") ?? "http://x/").searchParams.get("airlock_code")).toBe(
      "AIRLOCK_AUTHZ_INVALID_REQUEST",
    );
  });

  test("Deny sends access_denied with the state; a decision from another origin or without the CSRF token is refused", async () => {
    const client = (await h.register()).body;
    const denied = await h.consent(authorizeUrl(client.client_id ?? "", pkce().challenge), "deny");
    expect(denied.res.status).toBe(303);
    expect(denied.query.get("error")).toBe("access_denied");
    expect(denied.query.get("state")).toBe("st-42");
    expect(denied.query.get("iss")).toBe(ORIGIN);
    expect(denied.query.get("code")).toBeNull();
    const foreign = await h.consent(
      authorizeUrl(client.client_id ?? "", pkce().challenge),
      "approve",
      "https://evil.example",
    );
    expect(foreign.res.status).toBe(403);
    expect(foreign.res.headers.get("x-airlock-error")).toBe("AIRLOCK_AUTHZ_CONSENT_FORM_INVALID");
    const forged = await h.app.request("/oauth/authorize", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: h.cookie, origin: ORIGIN },
      body: "request=x&csrf=y&decision=approve",
    });
    expect(forged.headers.get("x-airlock-error")).toBe("AIRLOCK_AUTHZ_CONSENT_FORM_INVALID");
    const denials = (await h.f.host.queryAudit({ kind: "admin", limit: 500 })).filter(
      (e) => e.error === "AIRLOCK_AUTHZ_ACCESS_DENIED",
    );
    expect(denials.length).toBeGreaterThan(0);
    await h.healthyAndClean();
  });
});
