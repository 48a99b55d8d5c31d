// Hostile: malformed or smuggling requests — forbidden headers (Host, Transfer-Encoding, Proxy-*…),
// header injection, odd methods, credentials in the URL, non-http schemes, undeclared ports.
// Each is refused with its exact code before any connection, and the gate keeps working.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  containmentProblems,
  fetchHarness,
  startServer,
  type TestServer,
} from "../../host/src/isolation/egress/test-support.ts";

const SECRET = "sk-hostile-request-0d15ea5e";
let server: TestServer;
let health: TestServer;

beforeAll(async () => {
  server = await startServer((_req, res) => res.end("reached"));
  health = await startServer((_req, res) => res.end("ok"));
});
afterAll(async () => {
  await server.close();
  await health.close();
});

function harness() {
  return fetchHarness({
    health,
    egress: [
      { host: "api.test", schemes: ["http"], ports: [server.port], secrets: ["api_key"] },
      { host: "plain.test" },
    ],
    table: { "api.test": "127.0.0.1", "plain.test": "93.184.216.34" },
    allowPrivate: ["127.0.0.1"],
    secrets: ["api_key"],
    values: { api_key: SECRET },
  });
}

async function expectRefused(url: (port: number) => string, init: unknown, code: string) {
  const h = harness();
  const before = server.connections();
  const err = await h.refusal(url(server.port), init);
  expect(err.code).toBe(code);
  expect(server.connections()).toBe(before);
  expect(h.sink.entries).toHaveLength(1);
  expect(await h.healthy()).toBe(true);
  expect(h.leakFree(err)).toBe(true);
  return err;
}

const api = (port: number) => `http://api.test:${port}/`;

// Every test here ends contained: each harness it made still serves an allowed request and no
// secret value appears in any request's output or audit entry (see containmentProblems).
afterEach(async () => {
  expect(await containmentProblems()).toEqual([]);
});

describe("hostile egress: request shape", () => {
  it.each([
    "Host",
    "host",
    "Connection",
    "Keep-Alive",
    "Transfer-Encoding",
    "TE",
    "Trailer",
    "Upgrade",
    "Content-Length",
    "Expect",
    "Proxy-Authorization",
    "Proxy-Connection",
    "Accept-Encoding",
  ])("refuses the forbidden header %s", async (name) => {
    const err = await expectRefused(api, { headers: { [name]: "x" } }, "AIRLOCK_FETCH_BAD_REQUEST");
    expect(err.details).toMatchObject({ header: name.toLowerCase() });
  });

  it.each([
    [{ "x-a": "v\r\nX-Injected: 1" }],
    [{ "x-a": "v\nb" }],
    [{ "x-a": "nul\u0000" }],
    [{ "bad name": "v" }],
    [{ "x-a": "1", "X-A": "2" }],
    [["x-a", "v"]],
  ])("refuses the malformed headers %j", async (headers) => {
    await expectRefused(api, { headers }, "AIRLOCK_FETCH_BAD_REQUEST");
  });

  it.each(["CONNECT", "TRACE", "TRACK", "FOO", ""])("refuses the method %j", async (method) => {
    await expectRefused(api, { method }, "AIRLOCK_FETCH_BAD_REQUEST");
  });

  it.each([
    [{ method: "GET", body: "x" }],
    [{ method: "POST", body: { not: "bytes" } }],
    [{ timeoutMs: -1 }],
    ["not an object"],
  ])("refuses the malformed init %j", async (init) => {
    await expectRefused(api, init, "AIRLOCK_FETCH_BAD_REQUEST");
  });

  it.each([
    ["with credentials", (p: number) => `http://user:pass@api.test:${p}/`, "AIRLOCK_FETCH_BAD_REQUEST"],
    ["that does not parse", () => "not a url", "AIRLOCK_FETCH_BAD_REQUEST"],
    ["over 8 KiB", () => `http://api.test/${"a".repeat(9000)}`, "AIRLOCK_FETCH_BAD_REQUEST"],
    ["with an ftp: scheme", () => "ftp://api.test/", "AIRLOCK_FETCH_SCHEME_NOT_ALLOWED"],
    ["with a file: scheme", () => "file:///etc/passwd", "AIRLOCK_FETCH_SCHEME_NOT_ALLOWED"],
    ["with a data: scheme", () => "data:text/plain,hi", "AIRLOCK_FETCH_SCHEME_NOT_ALLOWED"],
    ["over http to an https-only host", () => "http://plain.test/", "AIRLOCK_FETCH_SCHEME_NOT_ALLOWED"],
    ["to a port besides the default", () => "https://plain.test:8443/", "AIRLOCK_FETCH_PORT_NOT_ALLOWED"],
    ["to an undeclared port", (p: number) => `http://api.test:${p + 1}/`, "AIRLOCK_FETCH_PORT_NOT_ALLOWED"],
    [
      "to a look-alike host",
      (p: number) => `http://api.test.evil.test:${p}/`,
      "AIRLOCK_FETCH_HOST_NOT_ALLOWED",
    ],
    [
      "to a subdomain of an exact host",
      (p: number) => `http://sub.api.test:${p}/`,
      "AIRLOCK_FETCH_HOST_NOT_ALLOWED",
    ],
  ])("refuses a URL %s", async (_label, url, code) => {
    await expectRefused(url, undefined, code);
  });
});
