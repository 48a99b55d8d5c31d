// Support for the authorization server's in-process suites: a real host with the kit, the admin
// app (app.request, no socket), an operator's console session cookie, and the client's side of
// the flow — registration, PKCE, the consent round trip, the code exchange, an MCP request.
// Every secret a test obtains goes into `issued`, and healthyAndClean() checks none of them (nor
// the canary secret) is in the audit log and that the host still answers.
import { createHash, randomBytes } from "node:crypto";
import type { Hono } from "hono";
import { expect } from "vitest";
import { createAdminApi } from "../app.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../test-support.ts";

export const ORIGIN = "http://localhost";
export const REDIRECT = "http://127.0.0.1:9/callback";
export const CANARY = "canary-authz-51c0-secret";

export const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

export function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function authorizeUrl(clientId: string, challenge: string, over: Record<string, string | null> = {}) {
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

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

export class AuthzHarness {
  f!: SurfaceFixture;
  app!: Hono;
  cookie = "";
  readonly issued: string[] = [];
  /** The origin the host names itself by: ORIGIN, or the public URL it was opened with. */
  origin = ORIGIN;

  async open(options: { publicUrl?: string } = {}): Promise<void> {
    if (options.publicUrl !== undefined) this.origin = options.publicUrl.replace(/\/+$/, "");
    this.f = await createSurfaceFixture(options);
    this.app = createAdminApi(this.f.host, { log: () => undefined });
    await this.f.host.setSecrets("alpha", { api_key: CANARY });
    const res = await this.app.request("/admin/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: this.f.operatorToken }),
    });
    this.cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  }

  async close(): Promise<void> {
    await this.f?.close();
  }

  #registrations = 0;

  /**
   * Registers a client. Each call comes from its own source address (the socket the node server
   * would pass as `env.incoming`), so suites stay under the per-address rate limit; `address`
   * names one (the rate-limit tests).
   */
  async register(redirectUris: unknown = [REDIRECT], address?: string) {
    this.#registrations += 1;
    const remoteAddress = address ?? `198.51.100.${this.#registrations % 250}`;
    const res = await this.app.request(
      "/oauth/register",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Desk client", redirect_uris: redirectUris }),
      },
      { incoming: { socket: { remoteAddress } } },
    );
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }

  /** GET the consent page in the session and POST the decision; answers the redirect's query. */
  async consent(url: string, decision = "approve", origin = this.origin) {
    const page = await this.app.request(url, { headers: { cookie: this.cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
    const res = await this.app.request("/oauth/authorize", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: this.cookie, origin },
      body: new URLSearchParams({ request: field("request"), csrf: field("csrf"), decision }).toString(),
    });
    return { res, query: new URL(res.headers.get("location") ?? "http://x/").searchParams };
  }

  /** A registered client's tokens for the agent, through consent and the code exchange. */
  async tokensFor(agent = "alpha") {
    const client = (await this.register()).body;
    const { verifier, challenge } = pkce();
    const { query } = await this.consent(
      authorizeUrl(client.client_id ?? "", challenge, { resource: `${this.origin}/mcp/${agent}` }),
    );
    const res = await this.app.request(
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
    this.issued.push(body.access_token ?? "", body.refresh_token ?? "", query.get("code") ?? "");
    return { client, body, status: res.status };
  }

  /** An MCP initialize request to the agent's endpoint with this bearer token. */
  mcp(agent: string, token: string) {
    return this.app.request(`/mcp/${agent}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(initialize),
    });
  }

  async healthyAndClean() {
    expect((await this.app.request("/healthz")).status).toBe(200);
    const audit = JSON.stringify(await this.f.host.queryAudit({ kind: "admin", limit: 1000 }));
    expect(audit).not.toContain(CANARY);
    for (const secret of this.issued.filter((s) => s !== "")) expect(audit).not.toContain(secret);
  }
}
