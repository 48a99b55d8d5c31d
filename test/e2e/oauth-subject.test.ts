// Per-end-user OAuth connections end to end, against a real OAuth server started by the test
// (test/support/oauth-server.ts): a caller names the end user of the agent a call is for — the
// library's CallOptions.subject, the calls route's `subject`, MCP `_meta["airlock/subject"]`
// (2025 and 2026-07-28 clients), and run_code's inner calls inherit it — and ctx.oauth /
// ctx.fetch({oauth}) use that user's connection. Refused: a malformed subject (its code, audited,
// the tool not run), and every reach across: another user of the agent, the agent itself, another
// agent naming the same user. Canary: nothing the provider issued, nor the client secret,
// appears in any output, audit entry, API answer or log.
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallOptions, ToolCallOutcome } from "../../host/src/contracts/host.ts";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  githubPlugin,
  type OAuthServer,
  startOAuthServer,
} from "../support/oauth-server.ts";

let oauth: OAuthServer;
let t: TestHost;
let admin: AdminServer;
let operator = "";
let adaToken = "";
const outputs: string[] = [];
/** The bearer of user-1@example.com's connection of ada. */
let userOne = "";

const meTool = `async (input, ctx) => {
  const need = await ctx.oauth.requireToken("github");
  if (!need.ok) return need.result;
  const r = await ctx.fetch(input.url, { oauth: "github" });
  return { status: r.status };
}`;

beforeAll(async () => {
  oauth = await startOAuthServer();
  t = await openTestHost([githubPlugin(oauth, { code: meTool, scopes: ["read:user"] })], {
    sandbox: { mode: "in-process" },
    egress: { allowPrivate: ["127.0.0.1"] },
    resolver: async () => [{ address: "127.0.0.1", family: 4 }],
  });
  admin = await startAdminServer(t.host);
  operator = (await t.host.issueToken("operator", undefined, "test")).token;
  for (const agent of ["ada", "bob"]) {
    await t.host.createAgent(agent);
    await t.host.setToolsEnabled(agent, { "gh:me": true });
    await t.host.setSecrets(agent, {
      github_oauth_client_id: CLIENT_ID,
      github_oauth_client_secret: CLIENT_SECRET,
    });
  }
  adaToken = (await t.host.issueToken("agent", "ada", "test")).token;
}, 60_000);
afterAll(async () => {
  await admin?.close();
  await t?.close();
  await oauth?.close();
});

const url = () => oauth.api.url("/user", "api.test");
const textOf = (o: ToolCallOutcome) =>
  o.result.content.map((c) => ("text" in c ? c.text : "uri" in c ? c.uri : "")).join("\n");

async function me(agent: string, options: Partial<CallOptions> = {}): Promise<ToolCallOutcome> {
  const out = await t.host.callTool(agent, "gh:me", { url: url() }, { agent, ...options });
  outputs.push(JSON.stringify(out));
  return out;
}

/** Follows a connect link as a browser would: host → provider consent → host callback. */
async function connect(text: string): Promise<void> {
  const link = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/connect\/[^\s)\]]+)/.exec(text)?.[1];
  expect(link, text).toBeDefined();
  const start = await fetch(String(link), { redirect: "manual" });
  const consent = await fetch(String(start.headers.get("location")), { redirect: "manual" });
  const done = await fetch(String(consent.headers.get("location")));
  expect(done.status).toBe(200);
}

/** The bearer the protected API saw last. */
const lastBearer = () => String(oauth.api.seen.at(-1)?.headers.authorization);

describe("per-end-user connections", () => {
  it("connects an end user the caller names, and uses that user's token for that user only", async () => {
    const first = await me("ada", { subject: "user-1@example.com" });
    expect(textOf(first)).toContain("AIRLOCK_OAUTH_NOT_CONNECTED");
    expect(textOf(first)).toContain("for user-1@example.com");
    await connect(textOf(first));
    const seen = oauth.api.seen.length;
    const ok = await me("ada", { subject: "user-1@example.com" });
    expect(ok.errorCode, textOf(ok)).toBeUndefined();
    expect(ok.result.structuredContent).toEqual({ status: 200 });
    expect(oauth.api.seen.length).toBe(seen + 1);
    userOne = lastBearer();
    expect(userOne).toMatch(/^Bearer at-/);
    // the agent itself, and another user of it, have no connection: nothing is sent for them
    for (const options of [{}, { subject: "user-2" }]) {
      const other = await me("ada", options);
      expect(textOf(other)).toContain("AIRLOCK_OAUTH_NOT_CONNECTED");
    }
    expect(oauth.api.seen.length).toBe(seen + 1);
    const listed = await t.host.oauth.connections("ada");
    expect(listed.map((c) => [c.provider, c.subject])).toEqual([["github", "user-1@example.com"]]);
  }, 60_000);

  it("never reaches another agent's connection for the same end user", async () => {
    const seen = oauth.api.seen.length;
    const bob = await me("bob", { subject: "user-1@example.com" });
    expect(textOf(bob)).toContain("AIRLOCK_OAUTH_NOT_CONNECTED");
    expect(oauth.api.seen.length).toBe(seen);
    expect(await t.host.oauth.connections("bob")).toEqual([]);
  });

  it("gives a second end user a connection of their own", async () => {
    await connect(textOf(await me("ada", { subject: "user-2" })));
    expect((await me("ada", { subject: "user-2" })).errorCode).toBeUndefined();
    expect(lastBearer()).not.toBe(userOne);
    expect((await me("ada", { subject: "user-1@example.com" })).errorCode).toBeUndefined();
    expect(lastBearer()).toBe(userOne);
  }, 60_000);

  it("audits the subject on the call and on the injected use", async () => {
    const audit = await t.host.queryAudit({ agent: "ada", limit: 200 });
    const call = audit.find((e) => e.kind === "tool" && e.success === true);
    expect(call?.details).toMatchObject({ subject: "user-1@example.com" });
    const use = audit.find((e) => e.action === "fetch.request" && e.success === true);
    expect(use?.details).toMatchObject({ oauth: "github", oauthSubject: "user-1@example.com" });
    const connected = audit.filter((e) => e.action === "oauth.connect");
    expect(connected.map((e) => e.details?.subject).sort()).toEqual(["user-1@example.com", "user-2"]);
  });

  it("refuses a malformed subject with AIRLOCK_TOOL_SUBJECT_INVALID before the tool runs, audited", async () => {
    const seen = oauth.api.seen.length;
    for (const subject of ["has space", "x".repeat(129), "üser", "a/b", "line\nbreak"]) {
      const out = await me("ada", { subject });
      expect(out.errorCode, subject).toBe("AIRLOCK_TOOL_SUBJECT_INVALID");
    }
    expect(oauth.api.seen.length).toBe(seen);
    const refused = (await t.host.queryAudit({ agent: "ada", kind: "tool", limit: 50 })).filter(
      (e) => e.error === "AIRLOCK_TOOL_SUBJECT_INVALID",
    );
    expect(refused.length).toBe(5);
    expect(refused.every((e) => e.allowed === false && e.details?.subject === undefined)).toBe(true);
    // an operator's link for a malformed user is refused too
    await expect(t.host.oauth.connectLink("ada", "gh", "github", "no spaces")).rejects.toMatchObject({
      code: "AIRLOCK_OAUTH_SUBJECT_INVALID",
    });
  });
});

describe("naming the end user over the wire", () => {
  it("takes `subject` on the calls route", async () => {
    const call = async (subject: unknown) => {
      const res = await fetch(`${admin.url}/api/instances/ada/calls`, {
        method: "POST",
        headers: { authorization: `Bearer ${adaToken}`, "content-type": "application/json" },
        body: JSON.stringify({ tool: "gh:me", input: { url: url() }, subject }),
      });
      const text = await res.text();
      outputs.push(text);
      return { status: res.status, json: JSON.parse(text) as ToolCallOutcome };
    };
    const ok = await call("user-1@example.com");
    expect(ok.status).toBe(200);
    expect(ok.json.errorCode).toBeUndefined();
    expect(lastBearer()).toBe(userOne);
    const bad = await call("not ok");
    expect(bad.json.errorCode).toBe("AIRLOCK_TOOL_SUBJECT_INVALID");
  }, 60_000);

  it("takes _meta['airlock/subject'] from a 2025-era and a 2026-07-28 MCP client", async () => {
    const target = new URL(admin.mcpUrl("ada"));
    const requestInit = { headers: { authorization: `Bearer ${adaToken}` } };
    const v1 = new V1Client({ name: "e2e", version: "1.0.0" });
    await v1.connect(new V1Transport(target, { requestInit }));
    const v2 = new V2Client(
      { name: "e2e", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await v2.connect(new V2Transport(target, { requestInit }));
    try {
      const calls = [
        (meta: Record<string, unknown>) =>
          v1.callTool({ name: "gh__me", arguments: { url: url() }, _meta: meta }),
        (meta: Record<string, unknown>) =>
          v2.callTool({ name: "gh__me", arguments: { url: url() }, _meta: meta }),
      ];
      for (const callTool of calls) {
        const ok = (await callTool({ "airlock/subject": "user-2" })) as { isError?: boolean };
        outputs.push(JSON.stringify(ok));
        expect(ok.isError, JSON.stringify(ok)).not.toBe(true);
        expect(lastBearer()).not.toBe(userOne);
        const bad = (await callTool({ "airlock/subject": 42 })) as { _meta?: Record<string, unknown> };
        outputs.push(JSON.stringify(bad));
        expect(bad._meta?.["airlock/errorCode"]).toBe("AIRLOCK_TOOL_SUBJECT_INVALID");
        const none = (await callTool({})) as { content: Array<{ text?: string }> };
        expect(JSON.stringify(none.content)).toContain("AIRLOCK_OAUTH_NOT_CONNECTED");
      }
    } finally {
      await v1.close();
      await v2.close();
    }
  }, 60_000);

  it("carries the subject into run_code's inner calls", async () => {
    await t.host.setCodeMode("ada", { enabled: true });
    const code = `return await tools.gh.me({ url: ${JSON.stringify(url())} });`;
    const ran = await t.host.callTool("ada", "run_code", { code }, { agent: "ada", subject: "user-2" });
    outputs.push(JSON.stringify(ran));
    expect(ran.errorCode, textOf(ran)).toBeUndefined();
    expect(ran.result.structuredContent).toEqual({ value: { status: 200 } });
    const inner = (await t.host.queryAudit({ agent: "ada", kind: "tool", tool: "me", limit: 1 }))[0];
    expect(inner?.details).toMatchObject({ subject: "user-2", parentCallId: expect.any(String) });
    const outer = (await t.host.queryAudit({ agent: "ada", kind: "tool", tool: "run_code", limit: 1 }))[0];
    expect(outer?.details).toMatchObject({ subject: "user-2" });
    const bad = await t.host.callTool("ada", "run_code", { code }, { agent: "ada", subject: "no good" });
    expect(bad.errorCode).toBe("AIRLOCK_TOOL_SUBJECT_INVALID");
    const refused = (await t.host.queryAudit({ agent: "ada", kind: "tool", tool: "run_code", limit: 1 }))[0];
    expect(refused).toMatchObject({ allowed: false, error: "AIRLOCK_TOOL_SUBJECT_INVALID" });
  }, 60_000);

  it("left nothing the provider issued, nor the client secret, anywhere", async () => {
    const said =
      outputs.join("\n") +
      JSON.stringify(await t.host.queryAudit({ limit: 1000 })) +
      (await (
        await fetch(`${admin.url}/api/instances/ada/oauth`, {
          headers: { authorization: `Bearer ${operator}` },
        })
      ).text()) +
      JSON.stringify(t.internalErrors.map((e) => String(e.error)));
    expect(oauth.issued.length).toBeGreaterThan(0);
    for (const value of [...oauth.issued, CLIENT_SECRET]) expect(said).not.toContain(value);
  });
});
