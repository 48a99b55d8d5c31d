// Hostile: an allowed server redirects the request somewhere it may not go — a refused address,
// an undeclared host, a name that resolves privately, an undeclared port or scheme, in a loop.
// Every hop is checked before it is connected: the refusal is AIRLOCK_FETCH_REDIRECT_REFUSED
// with the underlying code in details.reason, the target sees nothing, the gate keeps working.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  containmentProblems,
  fetchHarness,
  startServer,
  type TestServer,
} from "../../host/src/isolation/egress/test-support.ts";

const SECRET = "sk-hostile-redirect-51be07";
let origin: TestServer;
let inner: TestServer;
let health: TestServer;

beforeAll(async () => {
  // GET /to?u=<url> answers 302 Location: <url>; GET /chain/<n> redirects n more times.
  origin = await startServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/to") {
      res.writeHead(Number(url.searchParams.get("s") ?? 302), { location: url.searchParams.get("u") ?? "/" });
      res.end();
    } else if (url.pathname.startsWith("/chain/")) {
      const n = Number(url.pathname.slice(7));
      res.writeHead(n > 0 ? 302 : 200, n > 0 ? { location: `/chain/${n - 1}` } : {});
      res.end("end of chain");
    } else {
      res.end("origin");
    }
  });
  inner = await startServer((_req, res) => res.end("internal data"));
  health = await startServer((_req, res) => res.end("ok"));
});
afterAll(async () => {
  await origin.close();
  await inner.close();
  await health.close();
});

function harness(limits: { maxRedirects?: number } = {}) {
  return fetchHarness({
    health,
    egress: [
      { host: "api.test", schemes: ["http"], ports: [origin.port], secrets: ["api_key"] },
      { host: "evil.test", schemes: ["http", "https"], ports: [inner.port, origin.port] },
      { host: "127.0.0.1", schemes: ["http"], ports: [inner.port] },
    ],
    table: { "api.test": "127.0.0.1", "evil.test": "10.0.0.1" },
    allowPrivate: ["api.test"],
    secrets: ["api_key"],
    values: { api_key: SECRET },
    limits,
  });
}

const via = (target: string, status = 302) =>
  `http://api.test:${origin.port}/to?s=${status}&u=${encodeURIComponent(target)}`;

// Every test here ends contained: each harness it made still serves an allowed request and no
// secret value appears in any request's output or audit entry (see containmentProblems).
afterEach(async () => {
  expect(await containmentProblems()).toEqual([]);
});

describe("hostile egress: redirects", () => {
  it.each([
    ["a loopback IP literal", () => `http://127.0.0.1:${inner.port}/`, "AIRLOCK_FETCH_ADDRESS_REFUSED"],
    [
      "a decimal loopback spelling",
      () => `http://2130706433:${inner.port}/`,
      "AIRLOCK_FETCH_ADDRESS_REFUSED",
    ],
    [
      "an IPv4-mapped loopback",
      () => `http://[::ffff:7f00:1]:${inner.port}/`,
      "AIRLOCK_FETCH_ADDRESS_REFUSED",
    ],
    [
      "the metadata service",
      () => "http://169.254.169.254/latest/meta-data/",
      "AIRLOCK_FETCH_ADDRESS_REFUSED",
    ],
    ["a name resolving privately", () => `http://evil.test:${inner.port}/`, "AIRLOCK_FETCH_ADDRESS_REFUSED"],
    ["an undeclared host", () => `http://nowhere.test:${inner.port}/`, "AIRLOCK_FETCH_HOST_NOT_ALLOWED"],
    ["an undeclared port", () => `http://api.test:${inner.port}/`, "AIRLOCK_FETCH_PORT_NOT_ALLOWED"],
    ["an undeclared scheme", () => `https://api.test:${origin.port}/`, "AIRLOCK_FETCH_SCHEME_NOT_ALLOWED"],
    ["a file: URL", () => "file:///etc/passwd", "AIRLOCK_FETCH_SCHEME_NOT_ALLOWED"],
  ])("refuses a redirect to %s", async (_what, target, reason) => {
    const h = harness();
    const before = inner.connections();
    const err = await h.refusal(via(target()));
    expect(err.code).toBe("AIRLOCK_FETCH_REDIRECT_REFUSED");
    expect(err.details?.reason).toBe(reason);
    expect(inner.connections()).toBe(before);
    expect(h.sink.entries).toHaveLength(1);
    expect(h.sink.entries[0]).toMatchObject({ allowed: false, error: "AIRLOCK_FETCH_REDIRECT_REFUSED" });
    expect(await h.healthy()).toBe(true);
    expect(h.leakFree(err)).toBe(true);
  });

  it.each([301, 303, 307, 308])("re-checks the target of a %i redirect too", async (status) => {
    const h = harness();
    const err = await h.refusal(via(`http://127.0.0.1:${inner.port}/`, status));
    expect(err.code).toBe("AIRLOCK_FETCH_REDIRECT_REFUSED");
    expect(await h.healthy()).toBe(true);
  });

  it("refuses a redirect that carries an injected secret to a host the secret is not bound to", async () => {
    const h = fetchHarness({
      health,
      egress: [
        { host: "api.test", schemes: ["http"], ports: [origin.port], secrets: ["api_key"] },
        { host: "evil.test", schemes: ["http"], ports: [inner.port] },
      ],
      table: { "api.test": "127.0.0.1", "evil.test": "127.0.0.1" },
      allowPrivate: ["127.0.0.1"],
      secrets: ["api_key"],
      values: { api_key: SECRET },
    });
    const before = inner.connections();
    const err = await h.refusal(via(`http://evil.test:${inner.port}/steal`), {
      headers: { authorization: { $secretRef: "api_key", prefix: "Bearer " } },
    });
    expect(err.code).toBe("AIRLOCK_FETCH_REDIRECT_REFUSED");
    expect(err.details?.reason).toBe("AIRLOCK_FETCH_SECRET_NOT_BOUND");
    expect(inner.connections()).toBe(before);
    expect(origin.seen.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(h.leakFree(err)).toBe(true);
    expect(await h.healthy()).toBe(true);
  });

  it("stops a redirect chain past maxRedirects with AIRLOCK_FETCH_TOO_MANY_REDIRECTS", async () => {
    const h = harness({ maxRedirects: 2 });
    const ok = await h.request(`http://api.test:${origin.port}/chain/2`);
    expect(ok.redirected).toBe(true);
    const err = await h.refusal(`http://api.test:${origin.port}/chain/3`);
    expect(err.code).toBe("AIRLOCK_FETCH_TOO_MANY_REDIRECTS");
    expect(err.details).toMatchObject({ limit: 2 });
    expect(await h.healthy()).toBe(true);
  });

  it("does not follow any redirect when maxRedirects is 0", async () => {
    const h = harness({ maxRedirects: 0 });
    const err = await h.refusal(`http://api.test:${origin.port}/chain/1`);
    expect(err.code).toBe("AIRLOCK_FETCH_TOO_MANY_REDIRECTS");
  });
});
