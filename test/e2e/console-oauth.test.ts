// A remote MCP client connects with OAuth, in a real browser (Debian's chromium, playwright-core)
// against a real host on a real socket: the official MCP SDK v2 client discovers the metadata,
// registers, and its authorization URL opens in chromium, which is sent to sign in to the console
// and back to the consent page; the operator approves; the client gets tokens and lists and calls
// a tool. Then refresh, revocation (the client, then the operator in the console), a token for
// another agent's URL, a replayed code, a PKCE mismatch, an unknown redirect URI and Deny.
// Screens under test/artifacts/console/oauth-*.png. No token or canary secret reaches a page.
import { createHash, randomBytes } from "node:crypto";
import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../../host/src/surfaces/http/test-support.ts";
import { type Callback, MemoryOAuthProvider, startCallback } from "./console-oauth-support.ts";
import { hasChromium, launch, shot } from "./console-support.ts";

const CANARY = "canary-oauth-e2e-9d2f-never-shown";
const required = process.env.AIRLOCK_REQUIRE_CHROMIUM === "1";
const WAIT = { timeout: 20_000 };

let f: SurfaceFixture;
let server: AdminServer;
let callback: Callback;
let browser: Browser;
let page: Page;
const bodies: string[] = [];

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };

function mcpClient(provider: MemoryOAuthProvider, agent = "alpha") {
  const client = new Client({ name: "oauth-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl(agent)), {
    authProvider: provider,
  });
  return { client, transport };
}

/** The SDK's first connect: discovery and registration, then the authorization URL it wants opened. */
async function startConnect(provider: MemoryOAuthProvider): Promise<URL> {
  const { client, transport } = mcpClient(provider);
  await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  return provider.authorizationUrl as URL;
}

/** Approves (or denies) on the consent page the browser is on; answers the callback's query. */
async function decide(button: "Approve" | "Deny"): Promise<URLSearchParams> {
  const arrived = callback.next();
  await page.getByRole("button", { name: button }).click();
  return arrived;
}

async function rawMcp(agent: string, token: string) {
  return fetch(server.mcpUrl(agent), {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
}

async function token(body: Record<string, string>) {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

describe.skipIf(!hasChromium && !required)(
  "an MCP client connects with OAuth through the console's consent page (needs /usr/bin/chromium)",
  () => {
    let first: MemoryOAuthProvider;

    beforeAll(async () => {
      f = await createSurfaceFixture();
      await f.host.setSecrets("beta", { api_key: CANARY });
      server = await startAdminServer(f.host, { port: 0, log: () => undefined });
      callback = await startCallback();
      browser = await launch();
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      page = await context.newPage();
      page.on("response", async (res) => {
        try {
          bodies.push(await res.text());
        } catch {
          bodies.push(""); // a redirect has no body to read
        }
      });
    }, 120_000);
    afterEach(async (ctx) => {
      if (ctx.task.result?.state === "fail")
        await shot(page, `oauth-failed-${ctx.task.name.slice(0, 40).replace(/\W+/g, "-")}`);
    });
    afterAll(async () => {
      await browser?.close();
      await callback?.close();
      await server?.close();
      await f?.close();
    });

    test("the SDK client registers, the operator signs in and consents, the client lists and calls a tool", async () => {
      first = new MemoryOAuthProvider(callback.url, "Desk MCP client");
      const url = await startConnect(first);
      expect(first.client?.client_id).toMatch(/^alc_/);
      expect(url.searchParams.get("resource")).toBe(server.mcpUrl("alpha"));
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      await page.goto(url.href);
      await page.getByLabel("Operator token").waitFor(WAIT);
      await page.getByText("An MCP client asks to connect").waitFor(WAIT);
      await shot(page, "oauth-01-sign-in-first");
      await page.getByLabel("Operator token").fill(f.operatorToken);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Connect Desk MCP client to agent alpha?" }).waitFor(WAIT);
      for (const text of [callback.url, server.mcpUrl("alpha"), "kit:echo", "kit:slow"])
        await page.getByText(text).first().waitFor(WAIT);
      await shot(page, "oauth-02-consent");
      const query = await decide("Approve");
      expect(query.get("state")).toBe(first.lastState);
      expect(query.get("iss")).toBe(server.url);
      const { client, transport } = mcpClient(first);
      await transport.finishAuth(query);
      expect(first.tokens()?.access_token).toMatch(/^alk_oat_/);
      await client.connect(transport);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("kit__echo");
      const result = (await client.callTool({
        name: "kit__echo",
        arguments: { text: "hi over oauth" },
      })) as ToolResult;
      expect(result.isError).not.toBe(true);
      expect(JSON.stringify(result.content)).toContain("hi over oauth");
      await client.close();
      // the code the browser brought back was redeemed once; again, it is refused
      const replay = await token({
        grant_type: "authorization_code",
        code: query.get("code") ?? "",
        code_verifier: first.verifier,
        client_id: first.client?.client_id ?? "",
        redirect_uri: callback.url,
      });
      expect(replay.body).toMatchObject({
        error: "invalid_grant",
        airlock_code: "AIRLOCK_AUTHZ_CODE_REUSED",
      });
    }, 90_000);

    test("the replay revoked that grant; a new consent, then the SDK refreshes with a rotated token", async () => {
      expect((await rawMcp("alpha", first.tokens()?.access_token ?? "")).status).toBe(401);
      first.saved = undefined;
      const url = await startConnect(first);
      await page.goto(url.href);
      await page.getByRole("heading", { name: /Connect Desk MCP client/ }).waitFor(WAIT);
      await page.setViewportSize({ width: 400, height: 900 });
      await shot(page, "oauth-02b-consent-400px");
      await page.setViewportSize({ width: 1100, height: 900 });
      const { client, transport } = mcpClient(first);
      await transport.finishAuth(await decide("Approve"));
      const before = first.tokens();
      expect(await auth(first, { serverUrl: server.mcpUrl("alpha") })).toBe("AUTHORIZED");
      expect(first.tokens()?.refresh_token).not.toBe(before?.refresh_token);
      expect(first.tokens()?.access_token).not.toBe(before?.access_token);
      await client.connect(transport);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      const wrongAudience = await rawMcp("beta", first.tokens()?.access_token ?? "");
      expect(wrongAudience.status).toBe(401);
      expect(await wrongAudience.json()).toMatchObject({ error: { code: "AIRLOCK_AUTHZ_WRONG_AUDIENCE" } });
      const reuse = await token({
        grant_type: "refresh_token",
        refresh_token: before?.refresh_token ?? "",
        client_id: first.client?.client_id ?? "",
      });
      expect(reuse.body).toMatchObject({ airlock_code: "AIRLOCK_AUTHZ_REFRESH_REUSED" });
      expect((await rawMcp("alpha", first.tokens()?.access_token ?? "")).status).toBe(401);
    }, 90_000);

    test("revocation by the client, and by the operator in the console, refuses later calls", async () => {
      const second = new MemoryOAuthProvider(callback.url, "Laptop MCP client");
      await page.goto((await startConnect(second)).href);
      await page.getByRole("heading", { name: /Connect Laptop MCP client/ }).waitFor(WAIT);
      const a = mcpClient(second);
      await a.transport.finishAuth(await decide("Approve"));
      await a.client.connect(a.transport);
      const revoke = await fetch(`${server.url}/oauth/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          token: second.saved?.access_token ?? "",
          client_id: second.client?.client_id ?? "",
        }),
      });
      expect(revoke.status).toBe(200);
      await expect(a.client.callTool({ name: "kit__echo", arguments: { text: "x" } })).rejects.toThrow();
      await a.client.close().catch(() => undefined); // the transport already gave up
      const third = new MemoryOAuthProvider(callback.url, "Phone MCP client");
      await page.goto((await startConnect(third)).href);
      await page.getByRole("heading", { name: /Connect Phone MCP client/ }).waitFor(WAIT);
      const b = mcpClient(third);
      await b.transport.finishAuth(await decide("Approve"));
      await page.goto(`${server.url}/admin#/agents/alpha/grants`);
      const row = page.getByRole("row", { name: /Phone MCP client/ });
      await row.getByText("active").waitFor(WAIT);
      await page
        .getByRole("row", { name: /Laptop MCP client/ })
        .getByText(/revoked/)
        .waitFor(WAIT);
      await shot(page, "oauth-03-grants");
      await row.getByRole("button", { name: "Revoke the grant to Phone MCP client" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Revoke grant" }).click();
      await page.locator("#status").filter({ hasText: "Grant to Phone MCP client revoked" }).waitFor(WAIT);
      await row.getByText(/revoked/).waitFor(WAIT);
      await shot(page, "oauth-04-grant-revoked");
      const refused = await rawMcp("alpha", third.saved?.access_token ?? "");
      expect(await refused.json()).toMatchObject({ error: { code: "AIRLOCK_AUTHZ_TOKEN_INVALID" } });
    }, 120_000);

    test("refuses a PKCE mismatch, shows an unknown redirect URI on its own page, and Deny says access_denied", async () => {
      const clientId = first.client?.client_id ?? "";
      const verifier = randomBytes(32).toString("base64url");
      const authorize = (over: Record<string, string> = {}) =>
        `${server.url}/oauth/authorize?${new URLSearchParams({
          response_type: "code",
          client_id: clientId,
          redirect_uri: callback.url,
          code_challenge: createHash("sha256").update(verifier).digest("base64url"),
          code_challenge_method: "S256",
          state: "manual-state",
          resource: server.mcpUrl("alpha"),
          ...over,
        })}`;
      await page.goto(authorize());
      const query = await decide("Approve");
      const mismatch = await token({
        grant_type: "authorization_code",
        code: query.get("code") ?? "",
        code_verifier: randomBytes(32).toString("base64url"),
        client_id: clientId,
        redirect_uri: callback.url,
      });
      expect(mismatch.body).toMatchObject({
        error: "invalid_grant",
        airlock_code: "AIRLOCK_AUTHZ_PKCE_MISMATCH",
      });
      const res = await page.goto(authorize({ redirect_uri: `${callback.url}/elsewhere` }));
      expect(res?.status()).toBe(400);
      await page.getByText("AIRLOCK_AUTHZ_REDIRECT_URI_MISMATCH").waitFor(WAIT);
      expect(page.url()).toContain(`${server.url}/oauth/authorize`);
      await shot(page, "oauth-05-unknown-redirect-uri");
      await page.goto(authorize());
      const denied = await decide("Deny");
      expect(denied.get("error")).toBe("access_denied");
      expect(denied.get("state")).toBe("manual-state");
      expect(denied.get("code")).toBeNull();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const seen = bodies.join("\n");
      expect(seen).not.toContain(CANARY);
      expect(seen).not.toMatch(/alk_o(at|rt)_/);
      const audit = JSON.stringify(await f.host.queryAudit({ kind: "admin", limit: 1000 }));
      expect(audit).not.toMatch(/alk_o(at|rt|ac)_/);
      expect(audit).toContain("AIRLOCK_AUTHZ_PKCE_MISMATCH");
    }, 90_000);
  },
);
