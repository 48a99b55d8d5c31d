// ctx.oauth.requireToken over MCP, against the local OAuth server (test/support/oauth-server.ts):
// a client that declared URL-mode elicitation is sent the connect link as an elicitation; the
// "browser" (plain HTTP, redirects followed by hand) completes the flow, and the same call goes
// on with { ok: true } and reaches the API with the bearer: the 2025 era while the call waits,
// 2026-07-28 through an input_required round. A client without URL elicitation, or one that
// declines, gets today's result carrying the link. Canary: no token the provider issued, nor
// the client secret, crosses the MCP wire.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  githubPlugin,
  type OAuthServer,
  startOAuthServer,
} from "../support/oauth-server.ts";
import { connect, KINDS, type LoopFixture, text } from "./people/support.ts";

let oauth: OAuthServer;
let t: TestHost;
let admin: AdminServer;
let fx: LoopFixture;

const meTool = `async (input, ctx) => {
  const need = await ctx.oauth.requireToken("github");
  if (!need.ok) return need.result;
  const r = await ctx.fetch(input.url, { oauth: "github" });
  return { status: r.status, body: await r.text() };
}`;

beforeAll(async () => {
  oauth = await startOAuthServer();
  t = await openTestHost([githubPlugin(oauth, { code: meTool, scopes: ["repo"] })], {
    egress: { allowPrivate: ["127.0.0.1"] },
    resolver: async () => [{ address: "127.0.0.1", family: 4 }],
  });
  admin = await startAdminServer(t.host, { port: 0, log: () => undefined });
  await t.host.createAgent("alpha");
  await t.host.setToolsEnabled("alpha", { "gh:me": true });
  await t.host.setSecrets("alpha", {
    github_oauth_client_id: CLIENT_ID,
    github_oauth_client_secret: CLIENT_SECRET,
  });
  fx = {
    host: t.host,
    dataDir: t.dir,
    server: admin,
    operatorToken: (await t.host.issueToken("operator", undefined, "test")).token,
    agentToken: (await t.host.issueToken("agent", "alpha", "test")).token,
    logs: [],
    close: async () => undefined,
  };
}, 60_000);
afterAll(async () => {
  await admin?.close();
  await t?.close();
  await oauth?.close();
});

/** Follows the connect link as a browser would: host → provider consent → host callback. */
async function connectThrough(link: string): Promise<void> {
  const start = await fetch(link, { redirect: "manual" });
  expect(start.status).toBe(302);
  const consent = await fetch(String(start.headers.get("location")), { redirect: "manual" });
  expect(consent.status).toBe(302);
  const done = await fetch(String(consent.headers.get("location")));
  expect(done.status).toBe(200);
  expect(await done.text()).toContain("Connected github");
}

const args = () => ({ url: oauth.api.url("/user", "api.test") });
const apiAnswer = JSON.stringify({ status: 200, body: JSON.stringify({ login: "ada-lovelace" }) });

describe.each(KINDS)("%s", (kind) => {
  test("the connect link arrives as a URL elicitation; once connected, the same call goes on", async () => {
    await t.host.oauth.disconnect("alpha", "github");
    const c = await connect(kind, fx);
    c.answer = async (params) => {
      expect(params.mode).toBe("url");
      expect(params.url).toMatch(new RegExp(`^${admin.url}/oauth/connect/`));
      expect(params.message).toContain("gh:me needs access to github (scopes: repo)");
      await connectThrough(params.url as string);
      return { action: "accept" };
    };
    const result = await c.call("gh__me", args());
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe(apiAnswer);
    expect(c.asked).toHaveLength(1);
    expect(await t.host.oauth.connections("alpha")).toEqual([
      expect.objectContaining({ provider: "github" }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 50)); // recorded response bodies settle
    const wire = c.wire.join("\n");
    for (const value of [...oauth.issued, CLIENT_SECRET]) expect(wire).not.toContain(value);
    if (kind === "sdk v2, 2026-07-28") expect(wire).toContain('"resultType":"input_required"');
    await c.close();
  });

  test("a client that declines the link gets the result carrying it, as without elicitation", async () => {
    await t.host.oauth.disconnect("alpha", "github");
    const c = await connect(kind, fx);
    c.answer = () => ({ action: "decline" });
    const result = await c.call("gh__me", args());
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("AIRLOCK_OAUTH_NOT_CONNECTED");
    expect(result.content.some((p) => p.type === "resource_link")).toBe(true);
    expect(c.asked).toHaveLength(1);
    await c.close();
  });

  test("a client without URL elicitation keeps today's result with the link", async () => {
    await t.host.oauth.disconnect("alpha", "github");
    const c = await connect(kind, fx, { elicitation: { url: false } });
    const result = await c.call("gh__me", args());
    expect(text(result)).toContain("AIRLOCK_OAUTH_NOT_CONNECTED");
    expect(text(result)).toMatch(new RegExp(`${admin.url}/oauth/connect/`));
    expect(c.asked).toEqual([]);
    await c.close();
  });
});

test("the host still serves after every flow", async () => {
  expect((await fetch(`${admin.url}/healthz`)).status).toBe(200);
});
