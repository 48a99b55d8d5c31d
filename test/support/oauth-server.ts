// Test support: a real OAuth 2.1 authorization server on loopback (authorization endpoint that
// consents at once, token endpoint with PKCE S256, refresh-token rotation, RFC 7009 revocation)
// and a protected API that accepts only its live access tokens; plus an OpenAI-compatible chat
// completions stub. Everything it issued is listed (`issued`) so tests can assert no value
// leaked anywhere. Loopback only; nothing real is contacted.
import { createHash, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { FixturePlugin } from "../../host/src/engine/pipeline/test-fixtures.ts";
import {
  type SeenRequest,
  startServer,
  type TestServer,
} from "../../host/src/isolation/egress/test-support.ts";

export const CLIENT_ID = "airlock-test-client";
export const CLIENT_SECRET = "cs-canary-5e1f0c2a9b7d4e33";

export interface OAuthServer {
  server: TestServer;
  api: TestServer;
  /** Every access token, refresh token and code issued, for leak checks. */
  issued: string[];
  /** Token-endpoint requests by grant type. */
  grants: string[];
  revoked: Set<string>;
  /** Next authorizations: "ok", "deny" (error=access_denied), or "wrong-challenge" (stores a bogus challenge). */
  mode: "ok" | "deny" | "wrong-challenge";
  /** expires_in of the next tokens, seconds. */
  lifetime: number;
  close(): Promise<void>;
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

export async function startOAuthServer(): Promise<OAuthServer> {
  const codes = new Map<string, { challenge: string; redirectUri: string; used: boolean }>();
  const access = new Map<string, number>(); // token → expiry ms
  const refresh = new Set<string>();
  const state: Omit<OAuthServer, "server" | "api" | "close"> = {
    issued: [],
    grants: [],
    revoked: new Set(),
    mode: "ok",
    lifetime: 3600,
  };
  const fresh = (prefix: string) => {
    const v = `${prefix}-${randomBytes(12).toString("hex")}`;
    state.issued.push(v);
    return v;
  };
  const tokens = () => {
    const a = fresh("at");
    const r = fresh("rt");
    access.set(a, Date.now() + state.lifetime * 1000);
    refresh.add(r);
    return {
      access_token: a,
      refresh_token: r,
      token_type: "Bearer",
      expires_in: state.lifetime,
      scope: "repo read:user",
    };
  };
  const server = await startServer((req: SeenRequest, res) => {
    const url = new URL(req.url, "http://x");
    if (req.method === "GET" && url.pathname === "/authorize") {
      const redirect = url.searchParams.get("redirect_uri") ?? "";
      const st = url.searchParams.get("state") ?? "";
      if (
        url.searchParams.get("client_id") !== CLIENT_ID ||
        url.searchParams.get("code_challenge_method") !== "S256"
      ) {
        return send(res, 400, { error: "invalid_request" });
      }
      const back = new URL(redirect);
      back.searchParams.set("state", st);
      if (state.mode === "deny") back.searchParams.set("error", "access_denied");
      else {
        const code = fresh("code");
        const challenge =
          state.mode === "wrong-challenge" ? "A".repeat(43) : (url.searchParams.get("code_challenge") ?? "");
        codes.set(code, { challenge, redirectUri: redirect, used: false });
        back.searchParams.set("code", code);
      }
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    const form = new URLSearchParams(req.body.toString("utf8"));
    if (req.method === "POST" && url.pathname === "/token") {
      if (form.get("client_id") !== CLIENT_ID || form.get("client_secret") !== CLIENT_SECRET)
        return send(res, 401, { error: "invalid_client" });
      state.grants.push(form.get("grant_type") ?? "");
      if (form.get("grant_type") === "authorization_code") {
        const entry = codes.get(form.get("code") ?? "");
        const verifier = form.get("code_verifier") ?? "";
        const challenge = createHash("sha256").update(verifier).digest("base64url");
        if (
          entry === undefined ||
          entry.used ||
          entry.redirectUri !== form.get("redirect_uri") ||
          entry.challenge !== challenge
        )
          return send(res, 400, { error: "invalid_grant" });
        entry.used = true;
        return send(res, 200, tokens());
      }
      if (form.get("grant_type") === "refresh_token") {
        const r = form.get("refresh_token") ?? "";
        if (!refresh.has(r) || state.revoked.has(r)) return send(res, 400, { error: "invalid_grant" });
        refresh.delete(r); // rotation
        return send(res, 200, tokens());
      }
      return send(res, 400, { error: "unsupported_grant_type" });
    }
    if (req.method === "POST" && url.pathname === "/revoke") {
      const t = form.get("token") ?? "";
      state.revoked.add(t);
      refresh.delete(t);
      access.delete(t);
      return send(res, 200, {});
    }
    return send(res, 404, { error: "not_found" });
  });
  const api = await startServer((req, res) => {
    const auth = String(req.headers.authorization ?? "");
    const token = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    const expiry = access.get(token);
    if (req.url.startsWith("/redirect")) {
      res.writeHead(302, { location: String(new URL(req.url, "http://x").searchParams.get("to")) });
      return res.end();
    }
    if (expiry === undefined || expiry < Date.now() || state.revoked.has(token))
      return send(res, 401, { error: "bad token" });
    return send(res, 200, { login: "ada-lovelace" });
  });
  return Object.assign(state, {
    server,
    api,
    close: async () => {
      await server.close();
      await api.close();
    },
  }) as OAuthServer;
}

export interface ModelStub {
  server: TestServer;
  /** Completions served. */
  served: number;
  close(): Promise<void>;
}

/** An OpenAI-compatible POST /v1/chat/completions that answers only `Bearer <key>`. */
export async function startModelStub(key: string): Promise<ModelStub> {
  const stub = { served: 0 } as ModelStub;
  stub.server = await startServer((req, res) => {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") return send(res, 404, { error: "nope" });
    if (req.headers.authorization !== `Bearer ${key}`)
      return send(res, 401, { error: { message: "bad key" } });
    const body = JSON.parse(req.body.toString("utf8")) as {
      model: string;
      messages: Array<{ content: string }>;
    };
    stub.served++;
    const last = body.messages.at(-1)?.content ?? "";
    return send(res, 200, {
      id: `cmpl-${stub.served}`,
      model: body.model,
      choices: [
        { index: 0, message: { role: "assistant", content: `echo: ${last}` }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    });
  });
  stub.close = () => stub.server.close();
  return stub;
}

/**
 * The plugin the OAuth suites install: `gh:me` (read-only, `{url}`) runs `code`, an egress rule
 * for the API server and the provider `github` of this OAuth server with `scopes`, whose one API
 * host is `api.test` (resolved to the API server by the suites' resolver).
 */
export function githubPlugin(oauth: OAuthServer, options: { code: string; scopes: string[] }): FixturePlugin {
  return {
    namespace: "gh",
    tools: [
      {
        name: "me",
        code: options.code,
        annotations: { readOnlyHint: true },
        inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
      },
    ],
    egress: [{ host: "api.test", schemes: ["http"], ports: [oauth.api.port] }],
    oauth: [
      {
        name: "github",
        authorizationUrl: oauth.server.url("/authorize"),
        tokenUrl: oauth.server.url("/token"),
        scopes: options.scopes,
        apiHosts: ["api.test"],
      },
    ],
  };
}
