// Hostile and malformed requests against the admin API (in-process, real host): every refusal
// is a 4xx JSON `{error: {code, message}}` with a stable code, never a stack; the host stays
// healthy; a secret value never appears in any answer.
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAdminApi } from "./app.ts";
import { createSurfaceFixture, type SurfaceFixture } from "./test-support.ts";

let f: SurfaceFixture;
let app: Hono;
const logged: unknown[] = [];
const SECRET = "sk-very-secret-value-42";

interface Answer {
  status: number;
  text: string;
  json: { error?: { code: string; message: string; details?: Record<string, unknown> } } | null;
  headers: Headers;
}

async function send(
  method: string,
  path: string,
  init: { token?: string | null; type?: string; body?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const token = init.token === undefined ? f.operatorToken : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (init.type !== undefined) headers["content-type"] = init.type;
  const res = await app.request(path, {
    method,
    headers,
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await res.text();
  let json: Answer["json"] = null;
  try {
    json = JSON.parse(text) as Answer["json"];
  } catch (error) {
    throw new Error(`not JSON (${String(error)}): ${text.slice(0, 200)}`);
  }
  return { status: res.status, text, json, headers: res.headers };
}

function expectRefusal(answer: Answer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.json?.error?.code).toBe(code);
  expect(typeof answer.json?.error?.message).toBe("string");
  expect(answer.text).not.toMatch(/\n\s+at |\.ts:\d+/);
  expect(answer.text).not.toContain(SECRET);
}

beforeAll(async () => {
  f = await createSurfaceFixture();
  await f.host.setSecrets("alpha", { api_key: SECRET });
  app = createAdminApi(f.host, { mcp: false, maxBodyBytes: 64 * 1024, log: (e) => logged.push(e) });
});
afterAll(async () => {
  // Healthy after everything below, and nothing unexpected reached the operator log.
  expect((await app.request("/healthz")).status).toBe(200);
  expect(logged).toEqual([]);
  await f.close();
});

describe("authentication", () => {
  test("refuses a missing token with 401 AIRLOCK_API_UNAUTHORIZED", async () => {
    const answer = await send("GET", "/api/tools", { token: null });
    expectRefusal(answer, 401, "AIRLOCK_API_UNAUTHORIZED");
    expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="airlock"');
  });

  test("refuses an unknown, malformed or absurdly long token alike", async () => {
    for (const token of [
      "alk_op_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      "nonsense",
      "x".repeat(5000),
    ]) {
      expectRefusal(await send("GET", "/api/tools", { token }), 401, "AIRLOCK_API_UNAUTHORIZED");
    }
  });

  test("answers an agent token the same 404 for a missing agent and for another agent", async () => {
    for (const slug of ["ghost", "beta"]) {
      const answer = await send("GET", `/api/instances/${slug}/tools`, { token: f.agentToken });
      expectRefusal(answer, 404, "AIRLOCK_API_UNKNOWN_AGENT");
    }
  });

  test("tells a request that sent an unknown bearer token that the token is invalid", async () => {
    const sent = await app.request("/api/tools", { headers: { authorization: "Bearer alk_op_wrong" } });
    expect(sent.status).toBe(401);
    expect(sent.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const none = await app.request("/api/tools");
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="airlock"');
  });
});

describe("bodies", () => {
  test("refuses malformed JSON with AIRLOCK_API_BAD_JSON", async () => {
    const answer = await send("PUT", "/api/instances/alpha/knowledge", {
      type: "application/json",
      body: '{"level": ',
    });
    expectRefusal(answer, 400, "AIRLOCK_API_BAD_JSON");
  });

  test("never echoes a malformed body (which may carry a secret) in the error", async () => {
    const body = `{"values": {"api_key": ${SECRET}}}`;
    const answer = await send("PUT", "/api/instances/alpha/secrets", { type: "application/json", body });
    expectRefusal(answer, 400, "AIRLOCK_API_BAD_JSON");
    expect(answer.text).not.toContain("sk-very");
  });

  test("refuses wrong types naming the field", async () => {
    const answer = await send("PUT", "/api/instances/alpha/knowledge", {
      type: "application/json",
      body: JSON.stringify({ level: 3 }),
    });
    expectRefusal(answer, 400, "AIRLOCK_API_INVALID_REQUEST");
    expect(answer.json?.error?.message).toContain("level");
  });

  test("refuses unknown fields instead of ignoring them", async () => {
    const answer = await send("PUT", "/api/instances/alpha/knowledge", {
      type: "application/json",
      body: JSON.stringify({ level: "read", admin: true }),
    });
    expectRefusal(answer, 400, "AIRLOCK_API_INVALID_REQUEST");
  });

  test("refuses a JSON array, null or a bare string where an object is expected", async () => {
    for (const body of ["[]", "null", '"read"']) {
      const answer = await send("PUT", "/api/instances/alpha/secrets", { type: "application/json", body });
      expectRefusal(answer, 400, "AIRLOCK_API_INVALID_REQUEST");
    }
  });

  test("refuses a missing body and a non-JSON content type", async () => {
    expectRefusal(await send("PUT", "/api/instances/alpha/knowledge"), 400, "AIRLOCK_API_INVALID_REQUEST");
    const answer = await send("PUT", "/api/instances/alpha/knowledge", {
      type: "text/plain",
      body: "level=read",
    });
    expectRefusal(answer, 415, "AIRLOCK_API_UNSUPPORTED_MEDIA_TYPE");
  });

  test("refuses a body over the limit with 413, whether declared or streamed", async () => {
    const huge = JSON.stringify({ values: { api_key: "x".repeat(200 * 1024) } });
    expectRefusal(
      await send("PUT", "/api/instances/alpha/secrets", { type: "application/json", body: huge }),
      413,
      "AIRLOCK_API_BODY_TOO_LARGE",
    );
    const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 100) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await app.request("/api/instances/alpha/secrets", {
      method: "PUT",
      headers: { authorization: `Bearer ${f.operatorToken}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("AIRLOCK_API_BODY_TOO_LARGE");
    expect(sent).toBeLessThan(100);
  });

  test("refuses an invalid slug, secret key and tool reference", async () => {
    expectRefusal(
      await send("POST", "/api/instances", { type: "application/json", body: '{"slug":"Bad Slug"}' }),
      400,
      "AIRLOCK_API_INVALID_REQUEST",
    );
    expectRefusal(
      await send("DELETE", "/api/instances/alpha/secrets/NOT-A-KEY"),
      400,
      "AIRLOCK_API_INVALID_REQUEST",
    );
    const answer = await send("POST", "/api/instances/alpha/calls", {
      type: "application/json",
      body: JSON.stringify({ tool: "../../etc/passwd", input: {} }),
    });
    expectRefusal(answer, 400, "AIRLOCK_API_INVALID_REQUEST");
  });

  test("passes the host's own code through for an input the host refuses", async () => {
    const answer = await send("PATCH", "/api/instances/alpha/tools", {
      type: "application/json",
      body: JSON.stringify({ enabled: { "kit:nothere": true } }),
    });
    expect([answer.status, answer.json?.error?.code]).toEqual([404, "AIRLOCK_CATALOGUE_TOOL_UNKNOWN"]);
  });
});

describe("queries and routes", () => {
  test("refuses bad query values and repeated parameters", async () => {
    expectRefusal(await send("GET", "/api/audit?limit=100000"), 400, "AIRLOCK_API_INVALID_REQUEST");
    expectRefusal(await send("GET", "/api/audit?since=yesterday"), 400, "AIRLOCK_API_INVALID_REQUEST");
    expectRefusal(await send("GET", "/api/audit?agent=a&agent=b"), 400, "AIRLOCK_API_INVALID_REQUEST");
    expectRefusal(await send("GET", "/api/audit?bogus=1"), 400, "AIRLOCK_API_INVALID_REQUEST");
  });

  test("answers 404 AIRLOCK_API_NOT_FOUND for unknown routes, even without a token", async () => {
    expectRefusal(await send("GET", "/api/nope", { token: null }), 404, "AIRLOCK_API_NOT_FOUND");
    expectRefusal(await send("GET", "/etc/passwd"), 404, "AIRLOCK_API_NOT_FOUND");
  });

  test("answers 405 with an Allow header for a known path and a wrong method", async () => {
    const answer = await send("DELETE", "/api/tools");
    expectRefusal(answer, 405, "AIRLOCK_API_METHOD_NOT_ALLOWED");
    expect(answer.headers.get("allow")).toBe("GET");
  });
});
