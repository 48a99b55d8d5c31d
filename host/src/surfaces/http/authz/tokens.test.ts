// The authorization server's token half attacked in-process (app.request, no socket): codes
// become access tokens for one agent's MCP URL only; a PKCE mismatch, a replayed code and a
// reused refresh token are refused (the last two revoke the grant), and so is the refresh of a
// grant whose agent was deleted and made again; RFC 7009 revocation and the operator's revoke
// end a grant. Each refusal asserts its AIRLOCK_AUTHZ_* code, that the host
// still answers, and that no token, code or canary secret reaches the audit log.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { authzConfig } from "./config.ts";
import { AuthzHarness, authorizeUrl, form, pkce, REDIRECT } from "./test-support.ts";

const h = new AuthzHarness();
beforeAll(() => h.open());
afterAll(() => h.close());

test("refuses an access-token lifetime outside 60–86400 s at start, and takes one inside", () => {
  for (const bad of ["59", "86401", "1h", "-5", "3.5"])
    expect(() => authzConfig({ AIRLOCK_AUTHZ_ACCESS_TOKEN_TTL: bad })).toThrow(
      expect.objectContaining({ code: "AIRLOCK_AUTHZ_CONFIG_INVALID" }),
    );
  expect(authzConfig({ AIRLOCK_AUTHZ_ACCESS_TOKEN_TTL: "120" }).accessTtlMs).toBe(120_000);
  expect(authzConfig({}).accessTtlMs).toBe(3_600_000);
});

describe("tokens", () => {
  test("a code becomes an access token for that agent's MCP URL only, refused at the admin API", async () => {
    const { body, status } = await h.tokensFor("alpha");
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect(body.access_token).toMatch(/^alk_oat_/);
    expect((await h.mcp("alpha", body.access_token ?? "")).status).toBe(200);
    const other = await h.mcp("beta", body.access_token ?? "");
    expect(other.status).toBe(401);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_AUTHZ_WRONG_AUDIENCE",
    );
    expect(other.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const api = await h.app.request("/api/instances/alpha/tools", {
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    expect(api.status).toBe(401);
    await h.healthyAndClean();
  });

  test("refuses a PKCE mismatch and a replayed code, which revokes what the code gave", async () => {
    const client = (await h.register()).body;
    const { verifier, challenge } = pkce();
    const exchange = (code: string, v: string) =>
      h.app.request(
        "/oauth/token",
        form({
          grant_type: "authorization_code",
          code,
          code_verifier: v,
          client_id: client.client_id ?? "",
          redirect_uri: REDIRECT,
        }),
      );
    const first = (await h.consent(authorizeUrl(client.client_id ?? "", challenge))).query.get("code") ?? "";
    const wrong = await exchange(first, pkce().verifier);
    expect(await wrong.json()).toMatchObject({
      error: "invalid_grant",
      airlock_code: "AIRLOCK_AUTHZ_PKCE_MISMATCH",
    });
    const second = (await h.consent(authorizeUrl(client.client_id ?? "", challenge))).query.get("code") ?? "";
    const ok = (await (await exchange(second, verifier)).json()) as Record<string, string>;
    h.issued.push(first, second, ok.access_token ?? "", ok.refresh_token ?? "");
    expect((await h.mcp("alpha", ok.access_token ?? "")).status).toBe(200);
    const replay = await exchange(second, verifier);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({
      error: "invalid_grant",
      airlock_code: "AIRLOCK_AUTHZ_CODE_REUSED",
    });
    const after = await h.mcp("alpha", ok.access_token ?? "");
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_AUTHZ_TOKEN_INVALID",
    );
    await h.healthyAndClean();
  });

  test("rotates refresh tokens; reusing an old one revokes the family", async () => {
    const { client, body } = await h.tokensFor("alpha");
    const refresh = (token: string) =>
      h.app.request(
        "/oauth/token",
        form({ grant_type: "refresh_token", refresh_token: token, client_id: client.client_id ?? "" }),
      );
    const next = (await (await refresh(body.refresh_token ?? "")).json()) as Record<string, string>;
    h.issued.push(next.access_token ?? "", next.refresh_token ?? "");
    expect(next.refresh_token).not.toBe(body.refresh_token);
    expect((await h.mcp("alpha", next.access_token ?? "")).status).toBe(200);
    const reuse = await refresh(body.refresh_token ?? "");
    expect(await reuse.json()).toMatchObject({
      error: "invalid_grant",
      airlock_code: "AIRLOCK_AUTHZ_REFRESH_REUSED",
    });
    expect((await h.mcp("alpha", next.access_token ?? "")).status).toBe(401);
    expect(await (await refresh(next.refresh_token ?? "")).json()).toMatchObject({
      airlock_code: "AIRLOCK_AUTHZ_INVALID_GRANT",
    });
    await h.healthyAndClean();
  });

  test("a grant of an agent deleted and made again under its name refreshes no more: AIRLOCK_AUTHZ_INVALID_GRANT, audited, revoked", async () => {
    await h.f.host.createAgent("delta");
    const { client, body } = await h.tokensFor("delta");
    const refresh = (token: string) =>
      h.app.request(
        "/oauth/token",
        form({ grant_type: "refresh_token", refresh_token: token, client_id: client.client_id ?? "" }),
      );
    const rotated = (await (await refresh(body.refresh_token ?? "")).json()) as Record<string, string>;
    h.issued.push(rotated.access_token ?? "", rotated.refresh_token ?? "");
    expect(rotated.refresh_token).toMatch(/^alk_ort_/);
    await h.f.host.deleteAgent("delta");
    // the agent made again is another agent: created after the grant (a millisecond apart at least)
    await new Promise((resolve) => setTimeout(resolve, 2));
    await h.f.host.createAgent("delta");
    const refused = await refresh(rotated.refresh_token ?? "");
    expect(refused.status).toBe(400);
    const answer = await refused.text();
    expect(JSON.parse(answer)).toMatchObject({
      error: "invalid_grant",
      airlock_code: "AIRLOCK_AUTHZ_INVALID_GRANT",
    });
    expect(answer).not.toMatch(/alk_o(at|rt)_/);
    const [row] = (await h.f.host.queryAudit({ kind: "admin", limit: 50 })).filter(
      (r) => r.action === "oauth_as.refresh",
    );
    expect(row).toMatchObject({
      agent: "delta",
      success: false,
      error: "AIRLOCK_AUTHZ_INVALID_GRANT",
      details: { revoked: true, reason: "agent deleted or made again" },
    });
    const grant = (await h.f.host.authorization.listGrants("delta")).find(
      (g) => g.id === row?.details?.grantId,
    );
    expect(grant?.revokedAt).not.toBeNull();
    // refused again (the grant stays revoked), and its access token is refused at the new agent's URL
    expect(await (await refresh(rotated.refresh_token ?? "")).json()).toMatchObject({
      airlock_code: "AIRLOCK_AUTHZ_INVALID_GRANT",
    });
    const mcp = await h.mcp("delta", rotated.access_token ?? "");
    expect(((await mcp.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_AUTHZ_TOKEN_INVALID",
    );
    await h.healthyAndClean();
  });

  test("revocation (RFC 7009) and the operator's revoke both end a grant", async () => {
    const a = await h.tokensFor("alpha");
    expect(
      (
        await h.app.request(
          "/oauth/revoke",
          form({ token: a.body.refresh_token ?? "", client_id: a.client.client_id ?? "" }),
        )
      ).status,
    ).toBe(200);
    expect((await h.mcp("alpha", a.body.access_token ?? "")).status).toBe(401);
    const b = await h.tokensFor("alpha");
    const list = (await (
      await h.app.request("/api/instances/alpha/oauth-grants", {
        headers: { authorization: `Bearer ${h.f.operatorToken}` },
      })
    ).json()) as { grants: Array<{ id: string; revokedAt: string | null; clientName: string }> };
    const active = list.grants.filter((g) => g.revokedAt === null);
    expect(active.length).toBeGreaterThan(0);
    expect(JSON.stringify(list)).not.toContain("alk_o");
    for (const g of active) {
      const res = await h.app.request(`/api/instances/alpha/oauth-grants/${g.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${h.f.operatorToken}` },
      });
      expect(res.status).toBe(200);
    }
    expect((await h.mcp("alpha", b.body.access_token ?? "")).status).toBe(401);
    const unknown = await h.app.request("/api/instances/alpha/oauth-grants/alg_nothing", {
      method: "DELETE",
      headers: { authorization: `Bearer ${h.f.operatorToken}` },
    });
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_AUTHZ_UNKNOWN_GRANT",
    );
    expect((await h.app.request("/oauth/token", form({ grant_type: "password" }))).status).toBe(400);
    await h.healthyAndClean();
  });
});
