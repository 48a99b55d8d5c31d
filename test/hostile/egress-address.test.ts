// Hostile: a plugin aims ctx.fetch at hosts and addresses it may not reach — undeclared hosts,
// every spelling of loopback/private/metadata addresses, and names that resolve to them.
// Each refusal carries its exact code, opens no connection, leaves the gate working and leaks
// no secret.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  containmentProblems,
  fetchHarness,
  startServer,
  type TestServer,
} from "../../host/src/isolation/egress/test-support.ts";

const SECRET = "sk-hostile-address-7f3a9c";
let target: TestServer;
let health: TestServer;

beforeAll(async () => {
  target = await startServer((_req, res) => res.end("reached"));
  health = await startServer((_req, res) => res.end("ok"));
});
afterAll(async () => {
  await target.close();
  await health.close();
});

function harness(extra: Partial<Parameters<typeof fetchHarness>[0]> = {}) {
  return fetchHarness({
    health,
    egress: [
      { host: "api.test", schemes: ["http"], ports: [target.port], secrets: ["api_key"] },
      { host: "evil.test", schemes: ["http"], ports: [target.port] },
      { host: "127.0.0.1", schemes: ["http"], ports: [target.port] },
      { host: "metadata.google.internal", schemes: ["http"], ports: [target.port] },
      { host: "localhost", schemes: ["http"], ports: [target.port] },
    ],
    secrets: ["api_key"],
    values: { api_key: SECRET },
    ...extra,
  });
}

// Every test here ends contained: each harness it made still serves an allowed request and no
// secret value appears in any request's output or audit entry (see containmentProblems).
afterEach(async () => {
  expect(await containmentProblems()).toEqual([]);
});

describe("hostile egress: hosts and addresses", () => {
  it("refuses a host the manifest does not declare, without resolving it", async () => {
    const h = harness({ table: { "other.test": "93.184.216.34" } });
    const err = await h.refusal(`http://other.test:${target.port}/`);
    expect(err.code).toBe("AIRLOCK_FETCH_HOST_NOT_ALLOWED");
    expect(err.details).toMatchObject({ host: "other.test", by: "manifest" });
    expect(h.resolver.asked).toEqual([]);
    expect(h.sink.entries[0]).toMatchObject({ allowed: false, error: "AIRLOCK_FETCH_HOST_NOT_ALLOWED" });
    expect(await h.healthy()).toBe(true);
    expect(h.leakFree(err)).toBe(true);
  });

  it("refuses a declared host the operator does not allow for this namespace", async () => {
    const h = harness({
      table: { "api.test": "127.0.0.1" },
      hosts: { "some-other-plugin": ["*"], "egress-test": ["health.test"] },
    });
    const err = await h.refusal(`http://api.test:${target.port}/`);
    expect(err.code).toBe("AIRLOCK_FETCH_HOST_NOT_ALLOWED");
    expect(err.details).toMatchObject({ by: "operator" });
    expect(target.connections()).toBe(0);
    expect(h.leakFree(err)).toBe(true);
  });

  const spellings = [
    "127.0.0.1",
    "2130706433",
    "0177.0.0.1",
    "0x7f.1",
    "0x7f.0.0.1",
    "127.1",
    "127.0.1",
    "0x7f000001",
    "017700000001",
    "127.0.0.1.",
    "%31%32%37.0.0.1",
    "\uff11\uff12\uff17.0.0.1",
    "0",
    "0.0.0.0",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
    "[::]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[::127.0.0.1]",
    "[64:ff9b::127.0.0.1]",
    "[2002:7f00:1::]",
    "10.0.0.1",
    "100.64.0.1",
    "169.254.169.254",
    "2852039166",
    "[::ffff:a9fe:a9fe]",
    "[fd00:ec2::254]",
    "[fe80::1]",
    "[fc00::1]",
    "224.0.0.1",
    "255.255.255.255",
  ];

  it.each(spellings)("refuses the numeric host %s with AIRLOCK_FETCH_ADDRESS_REFUSED", async (host) => {
    const h = harness();
    const before = target.connections();
    const err = await h.refusal(`http://${host}:${target.port}/`, { headers: { "x-probe": "1" } });
    expect(err.code).toBe("AIRLOCK_FETCH_ADDRESS_REFUSED");
    expect(typeof err.details?.reason).toBe("string");
    expect(target.connections()).toBe(before);
    expect(await h.healthy()).toBe(true);
    expect(h.leakFree(err)).toBe(true);
  });

  it.each([
    ["10.0.0.1", "private"],
    ["127.0.0.1", "loopback"],
    ["169.254.169.254", "metadata"],
    ["100.64.0.1", "shared-address-space"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["fe80::1", "link-local"],
    ["fd00:ec2::254", "metadata"],
    ["64:ff9b::a9fe:a9fe", "nat64-metadata"],
    ["not-an-address", "not-an-address"],
  ])("refuses a name that resolves to %s (%s)", async (address, reason) => {
    const h = harness({ table: { "evil.test": address } });
    const before = target.connections();
    const err = await h.refusal(`http://evil.test:${target.port}/`);
    expect(err.code).toBe("AIRLOCK_FETCH_ADDRESS_REFUSED");
    expect(err.details).toMatchObject({ host: "evil.test", reason });
    expect(target.connections()).toBe(before);
    expect(await h.healthy()).toBe(true);
    expect(h.leakFree(err)).toBe(true);
  });

  it("refuses a name whose answer mixes a public and a private address", async () => {
    const h = harness({ table: { "evil.test": ["93.184.216.34", "127.0.0.1"] } });
    const err = await h.refusal(`http://evil.test:${target.port}/`);
    expect(err.code).toBe("AIRLOCK_FETCH_ADDRESS_REFUSED");
    expect(await h.healthy()).toBe(true);
  });

  it.each(["metadata.google.internal", "localhost"])(
    "refuses %s by name before asking the resolver",
    async (name) => {
      const h = harness({ table: { [name]: "93.184.216.34" } });
      const err = await h.refusal(`http://${name}:${target.port}/`);
      expect(err.code).toBe("AIRLOCK_FETCH_ADDRESS_REFUSED");
      expect(h.resolver.asked).not.toContain(name);
      expect(await h.healthy()).toBe(true);
    },
  );

  it("connects to the address it checked and never asks DNS again (rebinding)", async () => {
    let calls = 0;
    // The first answer is allowed; any later one would point at the metadata service.
    const rebinding = async () => {
      calls += 1;
      return [{ address: calls === 1 ? "127.0.0.1" : "169.254.169.254", family: 4 }];
    };
    const h = harness({ allowPrivate: ["127.0.0.1"], resolver: rebinding });
    const before = target.seen.length;
    const res = await h.request(`http://api.test:${target.port}/r`);
    expect(res.status).toBe(200);
    expect(calls).toBe(1);
    expect(target.seen.length).toBe(before + 1);
    expect(target.seen.at(-1)?.headers.host).toBe(`api.test:${target.port}`);
    const again = await h.request(`http://api.test:${target.port}/r`).catch((e: unknown) => e);
    expect((again as { code?: string }).code).toBe("AIRLOCK_FETCH_ADDRESS_REFUSED");
    expect(await h.healthy()).toBe(true);
  });
});
