// Registration limits attacked in-process: one source address past its burst of registrations
// is refused with AIRLOCK_AUTHZ_REGISTRATION_RATE_LIMITED (429, Retry-After) while another
// address still registers; past AIRLOCK_AUTHZ_MAX_CLIENTS every registration is refused with
// AIRLOCK_AUTHZ_TOO_MANY_CLIENTS. Each refusal is audited with its code, the host still answers,
// and no canary secret reaches the audit log. The bucket's refill is checked on its own clock.
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { authzConfig, REGISTER_BURST } from "./config.ts";
import { MAX_TRACKED_ADDRESSES, RegistrationBuckets } from "./register-limits.ts";
import { mountAuthorizationServer } from "./routes.ts";
import { AuthzHarness, REDIRECT } from "./test-support.ts";

const h = new AuthzHarness();
beforeAll(() => h.open());
afterAll(() => h.close());

const refusals = async (code: string) =>
  (await h.f.host.queryAudit({ kind: "admin", limit: 1000 })).filter(
    (e) => e.action === "oauth_as.register" && e.error === code,
  );

test("takes AIRLOCK_AUTHZ_MAX_CLIENTS from 1 to 1000000 and refuses anything else at start", () => {
  expect(authzConfig({}).maxClients).toBe(1000);
  expect(authzConfig({ AIRLOCK_AUTHZ_MAX_CLIENTS: "3" }).maxClients).toBe(3);
  for (const bad of ["0", "1000001", "many", "2.5"])
    expect(() => authzConfig({ AIRLOCK_AUTHZ_MAX_CLIENTS: bad })).toThrow(
      expect.objectContaining({ code: "AIRLOCK_AUTHZ_CONFIG_INVALID" }),
    );
});

describe("registration limits", () => {
  test("refuses an address past its burst with 429 while another address still registers", async () => {
    for (let i = 0; i < REGISTER_BURST; i++)
      expect((await h.register([REDIRECT], "203.0.113.7")).status).toBe(201);
    const over = await h.register([REDIRECT], "203.0.113.7");
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({
      error: "temporarily_unavailable",
      airlock_code: "AIRLOCK_AUTHZ_REGISTRATION_RATE_LIMITED",
    });
    expect(over.body.client_id).toBeUndefined();
    const again = await h.app.request(
      "/oauth/register",
      { method: "POST", body: "{}" },
      { incoming: { socket: { remoteAddress: "203.0.113.7" } } },
    );
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toBe("60");
    expect((await h.register([REDIRECT], "203.0.113.8")).status).toBe(201);
    const audited = await refusals("AIRLOCK_AUTHZ_REGISTRATION_RATE_LIMITED");
    expect(audited).toHaveLength(2);
    expect(audited[0]?.details).toMatchObject({ address: "203.0.113.7" });
    await h.healthyAndClean();
  });

  test("refuses every registration past the client cap and stores none of them", async () => {
    const app = new Hono();
    mountAuthorizationServer(app, h.f.host, {
      ...authzConfig({}),
      maxClients: 2 + (await h.f.host.authorization.countClients()),
    });
    const register = (n: number) =>
      app.request(
        "/oauth/register",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ client_name: `c${n}`, redirect_uris: [REDIRECT] }),
        },
        { incoming: { socket: { remoteAddress: `192.0.2.${n}` } } },
      );
    expect((await register(1)).status).toBe(201);
    expect((await register(2)).status).toBe(201);
    const before = await h.f.host.authorization.countClients();
    const over = await register(3);
    expect(over.status).toBe(503);
    expect(((await over.json()) as Record<string, string>).airlock_code).toBe(
      "AIRLOCK_AUTHZ_TOO_MANY_CLIENTS",
    );
    expect(await h.f.host.authorization.countClients()).toBe(before);
    expect(await refusals("AIRLOCK_AUTHZ_TOO_MANY_CLIENTS")).toHaveLength(1);
    await h.healthyAndClean();
  });
});

test("a bucket gives back one registration per refill period, never more than its burst", () => {
  const buckets = new RegistrationBuckets(2, 1000);
  expect([buckets.take("a", 0), buckets.take("a", 0), buckets.take("a", 0)]).toEqual([true, true, false]);
  expect(buckets.take("a", 999)).toBe(false);
  expect(buckets.take("a", 1000)).toBe(true);
  expect(buckets.take("a", 1000)).toBe(false);
  expect([buckets.take("a", 60_000), buckets.take("a", 60_000), buckets.take("a", 60_000)]).toEqual([
    true,
    true,
    false,
  ]);
});

test("keeps at most MAX_TRACKED_ADDRESSES buckets, the newest address's spent bucket among them", () => {
  const buckets = new RegistrationBuckets(1, 1000);
  buckets.take("spent", 0);
  for (let i = 0; i <= MAX_TRACKED_ADDRESSES; i++) buckets.take(`a${i}`, 5000);
  expect(buckets.size).toBeLessThanOrEqual(MAX_TRACKED_ADDRESSES);
  expect(buckets.take(`a${MAX_TRACKED_ADDRESSES}`, 5000)).toBe(false);
});
