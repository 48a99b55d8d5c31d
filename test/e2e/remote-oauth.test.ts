// OAuth toward a remote MCP server through the host's broker: the SDK v2 fixture server is made
// a protected resource (every request's bearer checked against the live tokens of the real OAuth
// server of test/support/oauth-server.ts, 401 otherwise). Installed with an OAuth provider it
// pins nothing until an agent connects; a call before that answers the connect link as its
// result, as ctx.oauth does; after the browser flow (connect page → consent → callback) a review
// as the connected agent pins the tools, and calls carry the broker's token toward that server
// only. Canary: no token the provider issued, nor the client secret, appears in any tool result,
// audit entry, API answer or host report.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CLIENT_ID, CLIENT_SECRET, type OAuthServer, startOAuthServer } from "../support/oauth-server.ts";
import { type RemoteHost, startRemoteHost } from "../support/remote-host.ts";
import { type RemoteFixture, startRemoteFixture } from "../support/remote-mcp-fixture.ts";

let oauth: OAuthServer;
let fx: RemoteFixture;
let h: RemoteHost;
const said: string[] = [];
/** The access token the broker sent for alpha. */
let sentToken = "";

beforeAll(async () => {
  oauth = await startOAuthServer();
  fx = await startRemoteFixture();
  fx.authorize = async (authorization) =>
    (await fetch(oauth.api.url("/user"), { headers: { authorization } })).status === 200;
  h = await startRemoteHost({ egress: { allowPrivate: ["127.0.0.1"] }, limits: { wallMs: 15_000 } });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await fx?.close();
  await oauth?.close();
});

/** Follows a connect link as a browser would: host → provider consent → host callback. */
async function connectThrough(link: string): Promise<number> {
  const start = await fetch(link, { redirect: "manual" });
  expect(start.status).toBe(302);
  const consent = await fetch(String(start.headers.get("location")), { redirect: "manual" });
  expect(consent.status).toBe(302);
  const done = await fetch(String(consent.headers.get("location")));
  said.push(await done.text());
  return done.status;
}

const textOf = (content: ReadonlyArray<Record<string, unknown>>) =>
  content.map((c) => String(c.text ?? c.uri ?? "")).join("\n");

describe("a remote MCP server behind OAuth", () => {
  test("refuses OAuth options that do not make a provider, and OAuth with a header", async () => {
    const base = { namespace: "bad", allowPrivate: ["127.0.0.1"] };
    await expect(
      h.host.remote.install(`mcp+${fx.url}`, {
        ...base,
        oauth: { provider: "x", authorizationUrl: "ftp://nope", tokenUrl: oauth.server.url("/token") },
      }),
    ).rejects.toMatchObject({ code: "AIRLOCK_REMOTE_SPEC_INVALID" });
    await expect(
      h.host.remote.install(`mcp+${fx.url}`, {
        ...base,
        header: { name: "Authorization", secret: "tok" },
        oauth: {
          provider: "fxauth",
          authorizationUrl: oauth.server.url("/authorize"),
          tokenUrl: oauth.server.url("/token"),
        },
      }),
    ).rejects.toMatchObject({ code: "AIRLOCK_REMOTE_SPEC_INVALID" });
    expect(await h.host.remote.list()).toEqual([]);
  });

  test("installs with nothing pinned, connects through the broker, then serves calls with its token", async () => {
    const report = await h.host.remote.install(`mcp+${fx.url}`, {
      namespace: "fx",
      allowPrivate: ["127.0.0.1"],
      oauth: {
        provider: "fxauth",
        authorizationUrl: oauth.server.url("/authorize"),
        tokenUrl: oauth.server.url("/token"),
        revocationUrl: oauth.server.url("/revoke"),
        scopes: ["repo"],
      },
    });
    expect(report.tools).toEqual([]);
    const [view] = await h.host.remote.list();
    expect(view?.oauth).toMatchObject({ provider: "fxauth", scopes: ["repo"] });
    // A review without a connected agent: the server still answers 401.
    await expect(h.host.remote.review("fx", { asAgent: "alpha" })).rejects.toMatchObject({
      code: "AIRLOCK_REMOTE_UNAUTHORIZED",
    });

    await h.host.setSecrets("alpha", {
      fxauth_oauth_client_id: CLIENT_ID,
      fxauth_oauth_client_secret: CLIENT_SECRET,
    });
    const link = await h.host.oauth.connectLink("alpha", "fx", "fxauth");
    expect(await connectThrough(link)).toBe(200);
    const reviewed = await h.host.remote.review("fx", { asAgent: "alpha" });
    expect(reviewed.tools.map((t) => t.tool)).toContain("echo");
    await h.host.setToolsEnabled("alpha", { "fx:echo": true });
    await h.host.setToolsEnabled("beta", { "fx:echo": true });
    await h.host.remote.setReadOnly("fx", "echo", true);

    const seen = fx.seenAuth.length;
    const ok = await h.host.callTool("alpha", "fx:echo", { text: "with a token" });
    expect(ok.errorCode).toBeUndefined();
    expect(ok.result.content).toEqual([{ type: "text", text: "echo: with a token" }]);
    const bearers = fx.seenAuth.slice(seen);
    expect(bearers.length).toBeGreaterThan(0);
    expect(bearers.every((b) => b.startsWith("Bearer at-"))).toBe(true);
    sentToken = String(bearers[0]).slice("Bearer ".length);
    expect(oauth.issued).toContain(sentToken);

    // beta is not connected: the result is its connect link, and the server is not contacted.
    const before = fx.methods.get("tools/call") ?? 0;
    await h.host.setSecrets("beta", {
      fxauth_oauth_client_id: CLIENT_ID,
      fxauth_oauth_client_secret: CLIENT_SECRET,
    });
    const refused = await h.host.callTool("beta", "fx:echo", { text: "no token" });
    expect(refused.result.isError).toBe(true);
    const text = textOf(refused.result.content as Array<Record<string, unknown>>);
    expect(text).toContain("AIRLOCK_OAUTH_NOT_CONNECTED");
    expect(text).toMatch(/\/oauth\/connect\//);
    expect(fx.methods.get("tools/call") ?? 0).toBe(before);
    said.push(JSON.stringify(refused), JSON.stringify(ok));

    // Through Airlock's MCP endpoint, as the agent's client sees it.
    const mcp = await h.mcp("alpha");
    const viaMcp = await mcp.call("fx__echo", { text: "over mcp" });
    expect(viaMcp.content).toEqual([{ type: "text", text: "echo: over mcp" }]);
    said.push(JSON.stringify(viaMcp), JSON.stringify(await mcp.names()));
    await mcp.close();
  });

  test("a token the provider revoked is answered AIRLOCK_REMOTE_UNAUTHORIZED; after a disconnect, the connect link again", async () => {
    oauth.revoked.add(sentToken);
    const revoked = await h.host.callTool("alpha", "fx:echo", { text: "revoked" });
    expect(revoked.errorCode).toBe("AIRLOCK_REMOTE_UNAUTHORIZED");
    said.push(JSON.stringify(revoked));
    await h.host.oauth.disconnect("alpha", "fxauth");
    const after = await h.host.callTool("alpha", "fx:echo", { text: "after disconnect" });
    expect(textOf(after.result.content as Array<Record<string, unknown>>)).toContain(
      "AIRLOCK_OAUTH_NOT_CONNECTED",
    );
    said.push(JSON.stringify(after));
    expect((await fetch(`${h.server.url}/healthz`)).status).toBe(200);
  });

  test("no token, refresh token or client secret is in any output, audit entry or report", async () => {
    const audit = await h.host.queryAudit({ limit: 1000 });
    const listing = await fetch(`${h.server.url}/api/remote/fx`, {
      headers: { authorization: `Bearer ${h.tokens.operator}` },
    });
    const everything = [
      ...said,
      JSON.stringify(audit),
      await listing.text(),
      JSON.stringify(await h.host.remote.list()),
      JSON.stringify(await h.host.listSecrets("alpha")),
      h.internal.join("\n"),
    ].join("\n");
    expect(oauth.issued.length).toBeGreaterThan(0);
    for (const value of [...oauth.issued, CLIENT_SECRET]) expect(everything).not.toContain(value);
  });
});
