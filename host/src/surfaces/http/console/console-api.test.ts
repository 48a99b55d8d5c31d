// The console's server side, attacked in-process: its headers (no framing, no sniffing, a CSP
// without inline code), sign-in (operator tokens only, audited), the session cookie (HttpOnly,
// SameSite=Strict, sealed), CSRF on every change, sign-out killing the cookie, and the API routes
// it added (tokens, agent removal, plugin diffs). No secret value crosses any response (canary).
import { writePluginTarball } from "@airlock/sdk/package";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundleSource, fixtureManifest } from "../../../engine/pipeline/test-fixtures.ts";
import { createAdminApi } from "../app.ts";
import { createSurfaceFixture, KIT, kitTarball, type SurfaceFixture } from "../test-support.ts";

let f: SurfaceFixture;
let app: Hono;
const CANARY = "canary-Zq81-secret-value-7731";

beforeAll(async () => {
  f = await createSurfaceFixture();
  app = createAdminApi(f.host, { mcp: false, log: () => undefined });
  await f.host.setToolsEnabled("alpha", { "kit:keyed": true });
  await f.host.setSecrets("alpha", { api_key: CANARY });
});
afterAll(async () => {
  await f.close();
});

async function signIn(token = f.operatorToken) {
  const res = await app.request("/admin/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
  const setCookie = res.headers.get("set-cookie") ?? "";
  const cookie = setCookie.split(";")[0] ?? "";
  return { res, setCookie, cookie, body: (await res.json()) as Record<string, unknown> & { csrf: string } };
}

async function healthy() {
  expect((await app.request("/healthz")).status).toBe(200);
}

async function auditActions(action: string) {
  return (await f.host.queryAudit({ kind: "admin", limit: 200 })).filter((e) => e.action === action);
}

describe("headers", () => {
  test("every console response forbids framing and sniffing and carries a CSP without inline code", async () => {
    for (const path of ["/admin", "/admin/app.js", "/admin/app.css"]) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("unsafe-eval");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    }
    const page = await (await app.request("/admin")).text();
    expect(page).toContain('src="/admin/app.js"');
    expect(page).not.toMatch(/<script>(?!<)/);
  });

  test("the bundled script fetches nothing from another origin", async () => {
    const script = await (await app.request("/admin/app.js")).text();
    expect(script.length).toBeGreaterThan(10_000);
    expect(script).not.toMatch(/(?:fetch|EventSource|import)\(\s*["'`]https?:\/\//);
    expect(script).not.toMatch(/localStorage|sessionStorage|document\.cookie/);
  });
});

describe("sign in", () => {
  test("an agent token is refused with AIRLOCK_CONSOLE_OPERATOR_ONLY, sets no cookie, and is audited", async () => {
    const before = (await auditActions("console.sign_in")).length;
    const { res, setCookie, body } = await signIn(f.agentToken);
    expect(res.status).toBe(403);
    expect((body.error as { code: string }).code).toBe("AIRLOCK_CONSOLE_OPERATOR_ONLY");
    expect(setCookie).toBe("");
    const entries = await auditActions("console.sign_in");
    expect(entries.length).toBe(before + 1);
    expect(entries[0]?.error).toBe("AIRLOCK_CONSOLE_OPERATOR_ONLY");
    expect(JSON.stringify(entries)).not.toContain(f.agentToken);
    await healthy();
  });

  test("an unknown token is 401 AIRLOCK_API_UNAUTHORIZED", async () => {
    const { res, body } = await signIn(`alk_op_${"A".repeat(43)}`);
    expect(res.status).toBe(401);
    expect((body.error as { code: string }).code).toBe("AIRLOCK_API_UNAUTHORIZED");
  });

  test("an agent token presented as a bearer cannot use the console's API routes", async () => {
    const res = await app.request("/api/tokens", { headers: { authorization: `Bearer ${f.agentToken}` } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("AIRLOCK_API_FORBIDDEN");
  });

  test("an operator token sets an HttpOnly SameSite=Strict cookie that holds no token in clear", async () => {
    const { res, setCookie, cookie, body } = await signIn();
    expect(res.status).toBe(200);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).toMatch(/Max-Age=28800/);
    expect(cookie).not.toContain("alk_op_");
    expect(JSON.stringify(body)).not.toContain("alk_");
    expect(body.csrf).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const who = await app.request("/admin/session", { headers: { cookie } });
    expect(((await who.json()) as { csrf: string }).csrf).toBe(body.csrf);
  });
});

describe("session and CSRF", () => {
  test("reads work with the cookie; a change without the CSRF header is 403 and audited; with it, it works", async () => {
    const { cookie, body } = await signIn();
    expect((await app.request("/api/instances", { headers: { cookie } })).status).toBe(200);
    const put = (headers: Record<string, string>) =>
      app.request("/api/instances/beta/knowledge", {
        method: "PUT",
        headers: { cookie, "content-type": "application/json", ...headers },
        body: JSON.stringify({ level: "write" }),
      });
    const before = (await auditActions("console.csrf")).length;
    for (const headers of [{}, { "x-airlock-csrf": "wrong" }, { "x-airlock-csrf": `${body.csrf}x` }]) {
      const res = await put(headers);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        "AIRLOCK_CONSOLE_CSRF_REFUSED",
      );
    }
    expect((await f.host.getAgent("beta"))?.knowledgeLevel).toBe("read");
    expect((await auditActions("console.csrf")).length).toBe(before + 3);
    const ok = await put({ "x-airlock-csrf": body.csrf });
    expect(ok.status).toBe(200);
    expect((await f.host.getAgent("beta"))?.knowledgeLevel).toBe("write");
    await f.host.setKnowledgeLevel("beta", "read");
  });

  test("a forged or altered cookie is 401 AIRLOCK_CONSOLE_SESSION_EXPIRED", async () => {
    const { cookie } = await signIn();
    for (const bad of [`${cookie}AA`, "airlock_console=forged", `${cookie.slice(0, -4)}abcd`]) {
      const res = await app.request("/api/instances", { headers: { cookie: bad } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        "AIRLOCK_CONSOLE_SESSION_EXPIRED",
      );
    }
    await healthy();
  });

  test("signing out needs the CSRF token, then revokes the session everywhere", async () => {
    const { cookie, body } = await signIn();
    const refused = await app.request("/admin/session", { method: "DELETE", headers: { cookie } });
    expect(refused.status).toBe(403);
    const out = await app.request("/admin/session", {
      method: "DELETE",
      headers: { cookie, "x-airlock-csrf": body.csrf },
    });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    const after = await app.request("/api/instances", { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_CONSOLE_SESSION_EXPIRED",
    );
  });

  test("a session ends when the operator token it was opened with is revoked: AIRLOCK_CONSOLE_SESSION_EXPIRED, audited, no token minted", async () => {
    const opener = await f.host.issueToken("operator", undefined, "laptop of an operator who leaves");
    const { cookie, body } = await signIn(opener.token);
    const mint = () =>
      app.request("/api/tokens", {
        method: "POST",
        headers: { cookie, "x-airlock-csrf": body.csrf, "content-type": "application/json" },
        body: JSON.stringify({ role: "operator", label: CANARY }),
      });
    expect((await app.request("/api/instances", { headers: { cookie } })).status).toBe(200);
    const sessionTokenId = (
      (await (await app.request("/admin/session", { headers: { cookie } })).json()) as {
        tokenId: string;
      }
    ).tokenId;
    await f.host.revokeToken(opener.id);
    const before = (await f.host.listTokens()).length;
    for (const res of [await app.request("/api/instances", { headers: { cookie } }), await mint()]) {
      expect(res.status).toBe(401);
      const text = await res.text();
      expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe(
        "AIRLOCK_CONSOLE_SESSION_EXPIRED",
      );
      expect(text).not.toContain(CANARY);
      expect(text).not.toContain("alk_op_");
    }
    const tokens = await f.host.listTokens();
    expect(tokens.length).toBeLessThan(before); // the session's own token went with it
    expect(tokens.some((t) => t.id === sessionTokenId || t.label === CANARY)).toBe(false);
    const [refusal] = (await auditActions("console.session")).filter(
      (e) => e.details?.reason === "opening token revoked",
    );
    expect(refusal).toMatchObject({
      success: false,
      error: "AIRLOCK_CONSOLE_SESSION_EXPIRED",
      details: { tokenId: opener.id, sessionTokenId },
    });
    expect(JSON.stringify(await f.host.queryAudit({ limit: 1000 }))).not.toMatch(/alk_op_|canary-Zq81/);
    await healthy();
  });

  test("a session opened before sessions named their opening token is refused, not trusted", async () => {
    const issued = await f.host.issueToken("operator", undefined, "console session (old form)");
    const old = f.host.seal("airlock-console-session", {
      t: issued.token,
      c: "x".repeat(32),
      e: Date.now() + 60_000,
    });
    const res = await app.request("/api/instances", { headers: { cookie: `airlock_console=${old}` } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_CONSOLE_SESSION_EXPIRED",
    );
    await healthy();
  });

  test("a bearer header wins over the cookie: an agent token with an operator's cookie stays an agent", async () => {
    const { cookie } = await signIn();
    const res = await app.request("/api/instances", {
      headers: { cookie, authorization: `Bearer ${f.agentToken}` },
    });
    expect(res.status).toBe(403);
  });
});

describe("the API routes the console added", () => {
  const op = () => ({ authorization: `Bearer ${f.operatorToken}`, "content-type": "application/json" });

  test("tokens are issued once, listed by label and prefix without a value, and revoked", async () => {
    const issued = await app.request("/api/tokens", {
      method: "POST",
      headers: op(),
      body: JSON.stringify({ role: "agent", agent: "beta", label: "laptop" }),
    });
    expect(issued.status).toBe(201);
    const { token, record } = (await issued.json()) as {
      token: string;
      record: { id: string; prefix: string };
    };
    expect(token).toMatch(/^alk_ag_/);
    expect(record.prefix).toBe(token.slice(0, 11));
    expect(record.prefix).toMatch(/^alk_ag_[A-Za-z0-9_-]{4}$/);
    const list = await (await app.request("/api/tokens?agent=beta", { headers: op() })).text();
    expect(list).toContain("laptop");
    expect(list).not.toContain(token);
    expect(
      (await app.request("/api/instances/beta/tools", { headers: { authorization: `Bearer ${token}` } }))
        .status,
    ).toBe(200);
    const revoked = await app.request(`/api/tokens/${record.id}`, { method: "DELETE", headers: op() });
    expect(revoked.status).toBe(200);
    expect(
      (await app.request("/api/instances/beta/tools", { headers: { authorization: `Bearer ${token}` } }))
        .status,
    ).toBe(401);
    const again = await app.request(`/api/tokens/${record.id}`, { method: "DELETE", headers: op() });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_API_UNKNOWN_TOKEN",
    );
    // The revocation is the host's own operation: it audits it (the unknown id under the host's
    // code), as it does every revocation, a console sign-out's included — hence the filter by id.
    const revokes = (await auditActions("token.revoke")).filter((e) => e.details?.tokenId === record.id);
    expect(revokes.map((e) => e.error)).toEqual(["AIRLOCK_AUTH_TOKEN_NOT_FOUND", null]);
  });

  test("an agent's removal is shown first, then deleting it removes its tokens, enablement and secrets", async () => {
    await f.host.createAgent("gamma");
    const t = await f.host.issueToken("agent", "gamma", "gamma's client");
    await f.host.setToolsEnabled("gamma", { "kit:keyed": true, "kit:echo": true });
    await f.host.setSecrets("gamma", { api_key: CANARY });
    const preview = await app.request("/api/instances/gamma/removal", { headers: op() });
    const shown = (await preview.json()) as { tokens: unknown[]; enabledTools: string[]; secrets: string[] };
    expect(shown.enabledTools).toEqual(["kit:echo", "kit:keyed"]);
    expect(shown.secrets).toEqual(["api_key"]);
    expect(shown.tokens).toHaveLength(1);
    expect(await f.host.getAgent("gamma")).not.toBeNull();
    const del = await app.request("/api/instances/gamma", { method: "DELETE", headers: op() });
    expect(del.status).toBe(200);
    expect(await f.host.getAgent("gamma")).toBeNull();
    expect(await f.host.authenticate(t.token)).toBeNull();
    expect((await app.request("/api/instances/gamma", { method: "DELETE", headers: op() })).status).toBe(404);
  });

  test("a tarball preview says what an install would change and installs nothing", async () => {
    const next = {
      ...KIT,
      version: "1.1.0",
      egress: [{ host: "api.example.com" }],
      tools: [
        ...KIT.tools
          .filter((t) => t.name !== "fail")
          .map((t) => (t.name === "echo" ? { ...t, description: "Echoes louder." } : t)),
        {
          name: "region",
          description: "Needs a region.",
          requiredSecrets: [
            {
              key: "region",
              type: "select" as const,
              choices: ["eu", "us"],
              optional: false,
              sensitive: false,
            },
          ],
          code: "async () => 'ok'",
        },
      ],
    };
    const bundle = bundleSource(next);
    const manifest = { ...fixtureManifest(next, bundle), knowledge: "write" as const };
    const tgz = writePluginTarball({
      packageJson: JSON.stringify({ name: "@fixtures/kit", version: "1.1.0" }),
      manifest: JSON.stringify(manifest),
      bundle,
    });
    const res = await app.request("/api/plugins/preview", {
      method: "POST",
      headers: { authorization: `Bearer ${f.operatorToken}`, "content-type": "application/octet-stream" },
      body: tgz,
    });
    expect(res.status).toBe(200);
    const diff = (await res.json()) as Record<string, unknown>;
    expect(diff).toMatchObject({
      namespace: "kit",
      from: "1.0.0",
      to: "1.1.0",
      installed: true,
      toolsAdded: ["kit:region"],
      toolsRemoved: ["kit:fail"],
      secretsAdded: ["region"],
      egressAdded: ["api.example.com"],
      knowledge: { from: null, to: "write" },
    });
    expect(diff.toolsChanged).toEqual([
      { tool: "kit:echo", description: { from: "Echoes the text back.", to: "Echoes louder." } },
    ]);
    expect((await f.host.plugins.list()).find((p) => p.namespace === "kit")?.active).toBe("1.0.0");
  });

  test("a diff against an installed version; an unknown one is 404 AIRLOCK_API_UNKNOWN_PLUGIN", async () => {
    const same = await app.request("/api/plugins/kit/diff?to=1.0.0", { headers: op() });
    expect(await same.json()).toMatchObject({ from: "1.0.0", to: "1.0.0", toolsAdded: [], toolsRemoved: [] });
    const missing = await app.request("/api/plugins/kit/diff?to=9.9.9", { headers: op() });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(
      "AIRLOCK_API_UNKNOWN_PLUGIN",
    );
    expect(kitTarball().byteLength).toBeGreaterThan(0);
  });

  test("no response the console reads carries the canary secret", async () => {
    const { cookie } = await signIn();
    for (const path of [
      "/api/instances",
      "/api/instances/alpha/secrets",
      "/api/instances/alpha/tools",
      "/api/instances/alpha/removal",
      "/api/tokens",
      "/api/audit?limit=1000",
      "/api/plugins",
      "/admin/session",
    ]) {
      const text = await (await app.request(path, { headers: { cookie } })).text();
      expect(text, path).not.toContain(CANARY);
    }
  });
});
