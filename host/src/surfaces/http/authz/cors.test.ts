// CORS on the admin server, in-process: a browser-based MCP client on another origin may read the
// OAuth metadata documents and call register, token and revoke (preflight and actual request
// answer `Access-Control-Allow-Origin: *`, never with credentials), while the consent page, the
// console, its session and the admin API answer no CORS header at all, preflight included.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AuthzHarness, authorizeUrl, form, pkce } from "./test-support.ts";

const h = new AuthzHarness();
beforeAll(() => h.open());
afterAll(() => h.close());

const SITE = "https://mcp-client.example";
const preflight = (path: string, method = "POST") =>
  h.app.request(path, {
    method: "OPTIONS",
    headers: {
      origin: SITE,
      "access-control-request-method": method,
      "access-control-request-headers": "content-type",
    },
  });

const OPEN = [
  ["/.well-known/oauth-authorization-server", "GET"],
  ["/.well-known/oauth-protected-resource", "GET"],
  ["/.well-known/oauth-protected-resource/mcp/alpha", "GET"],
  ["/oauth/register", "POST"],
  ["/oauth/token", "POST"],
  ["/oauth/revoke", "POST"],
] as const;

describe("CORS", () => {
  test("answers the preflight of the metadata, register, token and revoke endpoints for any origin", async () => {
    for (const [path, method] of OPEN) {
      const res = await preflight(path, method);
      expect(res.status, path).toBe(204);
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(res.headers.get("access-control-allow-methods"), path).toContain(method);
      expect(res.headers.get("access-control-allow-headers")?.toLowerCase(), path).toContain("content-type");
      expect(res.headers.get("access-control-allow-credentials"), path).toBeNull();
    }
  });

  test("sends Allow-Origin on the answers themselves, errors included, never credentials", async () => {
    const meta = await h.app.request("/.well-known/oauth-authorization-server", {
      headers: { origin: SITE },
    });
    expect(meta.headers.get("access-control-allow-origin")).toBe("*");
    const bad = await h.app.request("/oauth/token", {
      ...form({ grant_type: "password" }),
      headers: { ...form({}).headers, origin: SITE },
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("access-control-allow-origin")).toBe("*");
    expect(bad.headers.get("access-control-allow-credentials")).toBeNull();
    const registered = await h.register();
    expect(registered.status).toBe(201);
    await h.healthyAndClean();
  });

  test("sends no CORS header from the consent page, the console, its session or the admin API", async () => {
    const client = (await h.register()).body;
    const url = authorizeUrl(client.client_id ?? "", pkce().challenge);
    for (const path of [
      url,
      "/oauth/authorize",
      "/admin",
      "/admin/app.js",
      "/admin/session",
      "/api/instances",
    ]) {
      for (const method of ["GET", "POST"]) {
        const res = await preflight(path, method);
        expect(res.headers.get("access-control-allow-origin"), `preflight ${method} ${path}`).toBeNull();
      }
      const res = await h.app.request(path, { headers: { origin: SITE, cookie: h.cookie } });
      expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
      expect(res.headers.get("access-control-allow-credentials"), path).toBeNull();
    }
    await h.healthyAndClean();
  });
});
