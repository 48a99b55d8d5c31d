// ctx.oauth end to end, against a real OAuth server started by the test (test/support/
// oauth-server.ts): a plugin declaring a provider asks for a token, gets a connect link, the
// "browser" (plain HTTP requests, redirects followed by hand) goes through the host's connect
// page, the provider's consent and the host's callback, and the plugin's ctx.fetch then carries
// the bearer — injected by the gate, toward the provider's API hosts only. Attacks: a wrong,
// replayed or forged state, an altered link, a PKCE mismatch, a refused refresh (revoked grant),
// a token sent toward an undeclared host directly or by redirect, a plugin searching ctx for the
// token. Workers sandbox, SQLite, the host's real admin server. Canary: nothing the provider
// issued, nor the client secret, appears in any tool output, audit entry, API response or log.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FixturePlugin } from "../../host/src/engine/pipeline/test-fixtures.ts";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { CLIENT_ID, CLIENT_SECRET, type OAuthServer, startOAuthServer } from "../support/oauth-server.ts";

let oauth: OAuthServer;
let t: TestHost;
let admin: AdminServer;
/** How far the host's clock runs ahead of real time (ms): moves tokens toward expiry. */
let skew = 0;
const OPERATOR = { authorization: "" };

const meTool = `async (input, ctx) => {
  const need = await ctx.oauth.requireToken("github");
  if (!need.ok) return need.result;
  try {
    const r = await ctx.fetch(input.url, { oauth: "github" });
    return { status: r.status, body: await r.text() };
  } catch (e) {
    return { code: e.code, message: e.message };
  }
}`;

const snoopTool = `async (input, ctx) => {
  const seen = [];
  const walk = (v, depth) => {
    if (depth > 4 || v === null || (typeof v !== "object" && typeof v !== "function")) { seen.push(String(v)); return; }
    for (const k of Object.getOwnPropertyNames(v)) { seen.push(k); try { walk(v[k], depth + 1); } catch (e) { seen.push("!" + k); } }
  };
  walk(ctx, 0);
  seen.push(String(await ctx.oauth.token("github")));
  seen.push(String(await ctx.secrets.get("github_oauth_client_secret")));
  seen.push(String(await ctx.secrets.get("github_oauth_client_id")));
  let other;
  try { await ctx.oauth.requireToken("gitlab"); } catch (e) { other = e.code; }
  return { seen: seen.join(" "), other, raw: String(await ctx.oauth.token("rawhub")) };
}`;

function plugin(): FixturePlugin {
  const authorizationUrl = oauth.server.url("/authorize");
  const tokenUrl = oauth.server.url("/token");
  return {
    namespace: "gh",
    tools: [
      {
        name: "me",
        code: meTool,
        annotations: { readOnlyHint: true },
        inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
      },
      { name: "snoop", code: snoopTool, annotations: { readOnlyHint: true } },
    ],
    egress: [
      { host: "api.test", schemes: ["http"], ports: [oauth.api.port] },
      { host: "other.test", schemes: ["http"], ports: [oauth.api.port] },
    ],
    oauth: [
      {
        name: "github",
        authorizationUrl,
        tokenUrl,
        revocationUrl: oauth.server.url("/revoke"),
        scopes: ["repo", "read:user"],
        apiHosts: ["api.test"],
      },
      {
        name: "rawhub",
        authorizationUrl,
        tokenUrl,
        scopes: [],
        apiHosts: ["api.test"],
        rawToken: { reason: "hands the token to a git credential helper" },
      },
    ],
  };
}

beforeAll(async () => {
  oauth = await startOAuthServer();
  t = await openTestHost([plugin()], {
    sandbox: { mode: "workers" },
    egress: { allowPrivate: ["127.0.0.1"] },
    resolver: async () => [{ address: "127.0.0.1", family: 4 }],
    clock: () => Date.now() + skew,
  });
  admin = await startAdminServer(t.host);
  OPERATOR.authorization = `Bearer ${(await t.host.issueToken("operator", undefined, "test")).token}`;
  await t.host.createAgent("ada");
  await t.host.setToolsEnabled("ada", { "gh:me": true, "gh:snoop": true });
}, 60_000);
afterAll(async () => {
  await admin?.close();
  await t?.close();
  await oauth?.close();
});

beforeEach(() => {
  skew = 0;
  oauth.mode = "ok";
  oauth.lifetime = 3600;
});

const api = (path: string) => oauth.api.url(path, "api.test");

async function callMe(url = api("/user")) {
  const out = await t.host.callTool("ada", "gh:me", { url });
  const text = out.result.content.map((c) => ("text" in c ? c.text : "uri" in c ? c.uri : "")).join("\n");
  return { out, text };
}

/** Follows the connect link as a browser would: host → provider consent → host callback. */
async function connectThrough(link: string): Promise<{ status: number; page: string; callback: string }> {
  const start = await fetch(link, { redirect: "manual" });
  expect(start.status).toBe(302);
  const consent = await fetch(String(start.headers.get("location")), { redirect: "manual" });
  expect(consent.status).toBe(302);
  const callback = String(consent.headers.get("location"));
  expect(callback.startsWith(`${admin.url}/oauth/callback?`)).toBe(true);
  const done = await fetch(callback);
  return { status: done.status, page: await done.text(), callback };
}

function linkIn(text: string): string {
  const match = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/connect\/[^\s)\]]+)/.exec(text);
  expect(match).not.toBeNull();
  return match?.[1] as string;
}

async function everythingSaid(): Promise<string> {
  const audit = await t.host.queryAudit({ limit: 1000 });
  const listed = await (await fetch(`${admin.url}/api/instances/ada/oauth`, { headers: OPERATOR })).text();
  const secrets = await (await fetch(`${admin.url}/api/instances/ada/secrets`, { headers: OPERATOR })).text();
  return (
    JSON.stringify(audit) + listed + secrets + JSON.stringify(t.internalErrors.map((e) => String(e.error)))
  );
}

async function assertNoLeak(extra = ""): Promise<void> {
  const said = (await everythingSaid()) + extra;
  for (const value of [...oauth.issued, CLIENT_SECRET]) expect(said).not.toContain(value);
}

describe("ctx.oauth: connecting an account", () => {
  it("tells the person the operator must set the client id first", async () => {
    const { out, text } = await callMe();
    expect(out.errorCode).toBe("AIRLOCK_TOOL_REPORTED_ERROR");
    expect(text).toContain("AIRLOCK_OAUTH_CLIENT_MISSING");
    expect(text).toContain("github_oauth_client_id");
  });

  it("lists the provider's client credentials among the agent's secrets, the secret masked", async () => {
    await t.host.setSecrets("ada", {
      github_oauth_client_id: CLIENT_ID,
      github_oauth_client_secret: CLIENT_SECRET,
      rawhub_oauth_client_id: CLIENT_ID,
      rawhub_oauth_client_secret: CLIENT_SECRET,
    });
    const views = await t.host.listSecrets("ada");
    const byKey = new Map(views.map((v) => [v.key, v]));
    expect(byKey.get("github_oauth_client_id")).toMatchObject({
      set: true,
      sensitive: false,
      value: CLIENT_ID,
    });
    expect(byKey.get("github_oauth_client_secret")).toMatchObject({ set: true, sensitive: true });
    expect(byKey.get("github_oauth_client_secret")?.value).not.toContain(CLIENT_SECRET.slice(0, 6));
    expect(byKey.get("rawhub_oauth_raw_token")).toMatchObject({ set: false, sensitive: false });
  });

  it("answers a connect link, and after the sign-in the tool reaches the API with the bearer", async () => {
    const first = await callMe();
    expect(first.text).toContain("AIRLOCK_OAUTH_NOT_CONNECTED");
    expect(first.out.result.content.some((c) => c.type === "resource_link")).toBe(true);
    const { status, page } = await connectThrough(linkIn(first.text));
    expect(status).toBe(200);
    expect(page).toContain("Connected github");
    const { out, text } = await callMe();
    expect(out.errorCode).toBeUndefined();
    expect(JSON.parse(text)).toEqual({ status: 200, body: JSON.stringify({ login: "ada-lovelace" }) });
    const sent = oauth.api.seen.at(-1);
    expect(sent?.headers.authorization).toMatch(/^Bearer at-/);
    const connections = await t.host.oauth.connections("ada");
    expect(connections).toEqual([
      expect.objectContaining({
        provider: "github",
        subject: "",
        plugin: "gh",
        scopes: ["repo", "read:user"],
        refreshable: true,
      }),
    ]);
    const actions = (await t.host.queryAudit({ limit: 200 })).map((a) => a.action);
    expect(actions).toEqual(
      expect.arrayContaining(["oauth.connect.start", "oauth.connect", "fetch.request"]),
    );
    const use = (await t.host.queryAudit({ limit: 200 })).find(
      (a) => a.action === "fetch.request" && (a.details as { oauth?: string } | null)?.oauth === "github",
    );
    expect(use?.details).toMatchObject({ host: "api.test", oauth: "github", status: 200 });
    await assertNoLeak(text);
  });

  it("never lets the token into the isolate: a plugin searching ctx finds nothing", async () => {
    const out = await t.host.callTool("ada", "gh:snoop", {});
    const text = out.result.content.map((c) => ("text" in c ? c.text : "")).join("");
    const result = JSON.parse(text) as { seen: string; other: string; raw: string };
    expect(result.other).toBe("AIRLOCK_OAUTH_PROVIDER_UNDECLARED");
    expect(result.raw).toBe("undefined");
    for (const value of [...oauth.issued, CLIENT_SECRET]) expect(text).not.toContain(value);
    const denials = (await t.host.queryAudit({ limit: 300 })).filter((a) => a.allowed === false);
    expect(denials.map((a) => a.error)).toEqual(
      expect.arrayContaining([
        "AIRLOCK_OAUTH_RAW_TOKEN_REFUSED",
        "AIRLOCK_SECRETS_UNDECLARED",
        "AIRLOCK_OAUTH_PROVIDER_UNDECLARED",
      ]),
    );
  });

  it("refuses the bearer toward a host the provider did not declare, directly and by redirect", async () => {
    const before = oauth.api.seen.length;
    const direct = JSON.parse((await callMe(oauth.api.url("/user", "other.test"))).text) as { code: string };
    expect(direct.code).toBe("AIRLOCK_FETCH_OAUTH_HOST_NOT_ALLOWED");
    expect(oauth.api.seen.length).toBe(before); // refused before any connection
    const to = oauth.api.url("/user", "other.test");
    const hop = JSON.parse((await callMe(api(`/redirect?to=${encodeURIComponent(to)}`))).text) as {
      code: string;
      message: string;
    };
    expect(hop.code).toBe("AIRLOCK_FETCH_REDIRECT_REFUSED");
    expect(oauth.api.seen.length).toBe(before + 1); // only the first hop went out
    await assertNoLeak();
  });

  it("refuses a callback with an unknown state, and a replayed one, and audits both", async () => {
    const bogus = await fetch(`${admin.url}/oauth/callback?state=forged-state&code=whatever`);
    expect(bogus.status).toBe(400);
    expect(await bogus.text()).toContain("AIRLOCK_OAUTH_STATE_INVALID");
    expect(bogus.headers.get("x-frame-options")).toBe("DENY");
    await t.host.oauth.disconnect("ada", "github");
    const link = linkIn((await callMe()).text);
    const { status, callback } = await connectThrough(link);
    expect(status).toBe(200);
    const replay = await fetch(callback);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("AIRLOCK_OAUTH_STATE_INVALID");
    const refusals = (await t.host.queryAudit({ limit: 300 })).filter(
      (a) => a.action === "oauth.connect" && a.error === "AIRLOCK_OAUTH_STATE_INVALID",
    );
    expect(refusals.length).toBeGreaterThanOrEqual(2);
    expect(refusals.every((a) => a.allowed === false)).toBe(true);
    expect((await callMe()).out.errorCode).toBeUndefined(); // the first sign-in still stands
  });

  it("refuses an altered connect link", async () => {
    await t.host.oauth.disconnect("ada", "github");
    const link = linkIn((await callMe()).text);
    const altered = `${link.slice(0, -4)}${link.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    const res = await fetch(altered, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("AIRLOCK_OAUTH_LINK_INVALID");
  });

  it("stores nothing when the provider refuses the code (PKCE mismatch) or the person declines", async () => {
    await t.host.oauth.disconnect("ada", "github");
    oauth.mode = "wrong-challenge";
    const mismatch = await connectThrough(linkIn((await callMe()).text));
    expect(mismatch.status).toBe(502);
    expect(mismatch.page).toContain("AIRLOCK_OAUTH_TOKEN_FAILED");
    expect(mismatch.page).toContain("invalid_grant");
    oauth.mode = "deny";
    const declined = await connectThrough(linkIn((await callMe()).text));
    expect(declined.status).toBe(400);
    expect(declined.page).toContain("AIRLOCK_OAUTH_DENIED");
    expect(await t.host.oauth.connections("ada")).toEqual([]);
    expect((await callMe()).text).toContain("AIRLOCK_OAUTH_NOT_CONNECTED");
    await assertNoLeak();
  });

  it("refreshes a token near expiry once, and forgets one whose refresh the provider revoked", async () => {
    oauth.lifetime = 120;
    await connectThrough(linkIn((await callMe()).text));
    const refreshes = () => oauth.grants.filter((g) => g === "refresh_token").length;
    const before = refreshes();
    expect((await callMe()).out.errorCode).toBeUndefined();
    expect(refreshes()).toBe(before); // fresh: no refresh
    skew = 90_000; // 30 s left: inside the one-minute margin
    const both = await Promise.all([callMe(), callMe()]);
    expect(both.map((b) => b.out.errorCode)).toEqual([undefined, undefined]);
    expect(refreshes()).toBe(before + 1); // one refresh, shared by the two calls and both their uses
    expect(
      (await t.host.queryAudit({ limit: 300 })).some((a) => a.action === "oauth.refresh" && a.success),
    ).toBe(true);
    skew = 200_000; // past the refreshed token's margin again
    for (const value of oauth.issued) if (value.startsWith("rt-")) oauth.revoked.add(value);
    const after = await callMe();
    expect(after.text).toContain("AIRLOCK_OAUTH_NOT_CONNECTED");
    expect(await t.host.oauth.connections("ada")).toEqual([]);
    await assertNoLeak(after.text);
  });

  it("disconnects through the admin API, revoking the token at the provider", async () => {
    await connectThrough(linkIn((await callMe()).text));
    const revokedBefore = oauth.revoked.size;
    const res = await fetch(`${admin.url}/api/instances/ada/oauth/github`, {
      method: "DELETE",
      headers: OPERATOR,
    });
    expect(await res.json()).toEqual({ disconnected: true });
    expect(oauth.revoked.size).toBe(revokedBefore + 1);
    expect(await t.host.oauth.connections("ada")).toEqual([]);
    const audit = (await t.host.queryAudit({ limit: 300 })).find((a) => a.action === "oauth.disconnect");
    expect(audit?.details).toMatchObject({ provider: "github", revokedAtProvider: true });
    const agentToken = (await t.host.issueToken("agent", "ada", "t")).token;
    const refused = await fetch(`${admin.url}/api/instances/ada/oauth`, {
      headers: { authorization: `Bearer ${agentToken}` },
    });
    expect(refused.status).toBe(403);
    await assertNoLeak();
  });

  it("hands the raw token only where the manifest says why and the operator allows it", async () => {
    const link = (await t.host.oauth.connectLink("ada", "gh", "rawhub")) as string;
    expect((await connectThrough(link)).status).toBe(200);
    const snoop = async () =>
      JSON.parse(
        (await t.host.callTool("ada", "gh:snoop", {})).result.content
          .map((c) => ("text" in c ? c.text : ""))
          .join(""),
      ) as { raw: string };
    expect((await snoop()).raw).toBe("undefined");
    await t.host.setSecrets("ada", { rawhub_oauth_raw_token: "allow" });
    expect((await snoop()).raw).toMatch(/^at-/);
    await t.host.setSecrets("ada", { rawhub_oauth_raw_token: "deny" });
    expect((await snoop()).raw).toBe("undefined");
  });

  it("still serves after every attack", async () => {
    expect((await fetch(`${admin.url}/healthz`)).status).toBe(200);
    expect(t.host.stats().sandbox).toBeDefined();
    const out = await t.host.callTool("ada", "gh:snoop", {});
    expect(out.errorCode).toBeUndefined();
  });
});
