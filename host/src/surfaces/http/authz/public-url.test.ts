// The authorization server behind a TLS-terminating proxy: with a public URL configured
// (--public-url, AIRLOCK_PUBLIC_URL) the requests reach the host on its own origin
// (http://localhost here, app.request) while the issuer, the endpoints, the protected-resource
// metadata, the 401 challenge, `iss` and the audience of the tokens all name the public URL; a
// decision posted from the inner origin and a resource on it are refused with their codes, the
// host still answers, and no token or canary secret reaches the audit log.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AuthzHarness, authorizeUrl, ORIGIN, pkce } from "./test-support.ts";

const PUBLIC = "https://airlock.example.com";
const h = new AuthzHarness();
beforeAll(() => h.open({ publicUrl: `${PUBLIC}/` }));
afterAll(() => h.close());

const json = async (path: string) => (await (await h.app.request(path)).json()) as Record<string, unknown>;

describe("a host with a public URL", () => {
  test("names the public URL as issuer, in every endpoint and in the protected-resource metadata", async () => {
    expect(await json("/.well-known/oauth-authorization-server")).toMatchObject({
      issuer: PUBLIC,
      authorization_endpoint: `${PUBLIC}/oauth/authorize`,
      token_endpoint: `${PUBLIC}/oauth/token`,
      registration_endpoint: `${PUBLIC}/oauth/register`,
      revocation_endpoint: `${PUBLIC}/oauth/revoke`,
    });
    expect(await json("/.well-known/oauth-protected-resource/mcp/alpha")).toEqual(
      expect.objectContaining({ resource: `${PUBLIC}/mcp/alpha`, authorization_servers: [PUBLIC] }),
    );
    expect(await json("/.well-known/oauth-protected-resource")).toEqual(
      expect.objectContaining({ resource: PUBLIC, authorization_servers: [PUBLIC] }),
    );
    const challenge = await h.app.request("/mcp/alpha", { method: "POST" });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("www-authenticate")).toContain(
      `resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp/alpha"`,
    );
  });

  test("grants a token for the public MCP URL, sends iss as the public URL, and the token works", async () => {
    const { client, body, status } = await h.tokensFor("alpha");
    expect(status).toBe(200);
    expect(body.access_token).toMatch(/^alk_oat_/);
    expect((await h.mcp("alpha", body.access_token ?? "")).status).toBe(200);
    const { verifier: _v, challenge } = pkce();
    const { query } = await h.consent(
      authorizeUrl(client.client_id ?? "", challenge, { resource: `${PUBLIC}/mcp/alpha` }),
    );
    expect(query.get("iss")).toBe(PUBLIC);
    expect(query.get("code")).not.toBeNull();
    h.issued.push(query.get("code") ?? "");
    await h.healthyAndClean();
  });

  test("refuses a resource on the inner origin (AIRLOCK_AUTHZ_INVALID_RESOURCE)", async () => {
    const client = (await h.register()).body;
    const { challenge } = pkce();
    const url = authorizeUrl(client.client_id ?? "", challenge, { resource: `${ORIGIN}/mcp/alpha` });
    const res = await h.app.request(url, { headers: { cookie: h.cookie } });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get("location") ?? "http://x/").searchParams;
    expect(back.get("airlock_code")).toBe("AIRLOCK_AUTHZ_INVALID_RESOURCE");
    expect(back.get("iss")).toBe(PUBLIC);
    await h.healthyAndClean();
  });

  test("refuses a decision posted from the inner origin (AIRLOCK_AUTHZ_CONSENT_FORM_INVALID)", async () => {
    const client = (await h.register()).body;
    const { challenge } = pkce();
    const { res } = await h.consent(
      authorizeUrl(client.client_id ?? "", challenge, { resource: `${PUBLIC}/mcp/alpha` }),
      "approve",
      ORIGIN,
    );
    expect(res.status).toBe(403);
    expect(res.headers.get("x-airlock-error")).toBe("AIRLOCK_AUTHZ_CONSENT_FORM_INVALID");
    await h.healthyAndClean();
  });
});
