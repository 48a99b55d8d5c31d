// Conformance tests of the brokered-credentials half of the Store: single-use OAuth flows,
// tokens per (agent, subject, provider), model connections, grants and budgeted usage.
// Registered by storeConformance (./conformance.ts).
import { expect, it } from "vitest";
import type { OAuthFlowRecord, OAuthTokenRecord } from "./broker-types.ts";
import type { Store } from "./types.ts";

const NOW = 1_800_000_000_000;

const flow = (state: string, over: Partial<OAuthFlowRecord> = {}): OAuthFlowRecord => ({
  state,
  agent: "a",
  subject: "",
  provider: "github",
  plugin: "gh",
  verifier: "av1.cipher",
  redirectUri: "http://127.0.0.1:7070/oauth/callback",
  expiresAt: NOW + 60_000,
  ...over,
});

const token = (over: Partial<OAuthTokenRecord> = {}): OAuthTokenRecord => ({
  agent: "a",
  subject: "",
  provider: "github",
  plugin: "gh",
  ciphertext: "av1.token",
  scopes: ["repo", "read:user"],
  expiresAt: NOW + 3_600_000,
  updatedAt: new Date(NOW).toISOString(),
  ...over,
});

export function brokerConformance(s: () => Store): void {
  it("hands an OAuth flow out once, and never after it expired", async () => {
    await s().putOAuthFlow(flow("one"));
    await s().putOAuthFlow(flow("old", { expiresAt: NOW - 1 }));
    expect(await s().takeOAuthFlow("one", NOW)).toEqual(flow("one"));
    expect(await s().takeOAuthFlow("one", NOW)).toBeNull();
    expect(await s().takeOAuthFlow("old", NOW)).toBeNull();
    expect(await s().takeOAuthFlow("never", NOW)).toBeNull();
  });

  it("keeps one OAuth token per agent, subject and provider, replaced on put", async () => {
    await s().putOAuthToken(token());
    await s().putOAuthToken(token({ subject: "user-7", ciphertext: "av1.u7" }));
    await s().putOAuthToken(token({ ciphertext: "av1.newer", expiresAt: null }));
    expect(await s().getOAuthToken("a", "", "github")).toEqual(
      token({ ciphertext: "av1.newer", expiresAt: null }),
    );
    expect((await s().listOAuthTokens("a")).map((t) => [t.subject, t.ciphertext])).toEqual([
      ["", "av1.newer"],
      ["user-7", "av1.u7"],
    ]);
    expect(await s().listOAuthTokens("b")).toEqual([]);
    expect(await s().deleteOAuthToken("a", "user-7", "github")).toBe(true);
    expect(await s().deleteOAuthToken("a", "user-7", "github")).toBe(false);
    expect(await s().getOAuthToken("a", "user-7", "github")).toBeNull();
  });

  it("deletes an agent's tokens, flows and model grants with the agent", async () => {
    await s().ensureAgent("a");
    await s().putOAuthToken(token());
    await s().putOAuthFlow(flow("f"));
    await s().putModelConnection({
      name: "m",
      baseUrl: "https://x/v1",
      model: "m1",
      keyCiphertext: "k",
      updatedAt: "t",
    });
    await s().putModelGrant({
      agent: "a",
      plugin: "gh",
      connection: "m",
      maxTokens: 10,
      maxCalls: null,
      period: "day",
      updatedAt: "t",
    });
    await s().deleteAgent("a");
    expect(await s().getOAuthToken("a", "", "github")).toBeNull();
    expect(await s().takeOAuthFlow("f", NOW)).toBeNull();
    expect(await s().getModelGrant("a", "gh")).toBeNull();
  });

  it("stores model connections and drops their grants with them", async () => {
    const c = {
      name: "local",
      baseUrl: "http://127.0.0.1:1/v1",
      model: "small",
      keyCiphertext: "av1.k",
      updatedAt: "t",
    };
    await s().putModelConnection(c);
    await s().putModelConnection({ ...c, model: "large" });
    expect(await s().getModelConnection("local")).toEqual({ ...c, model: "large" });
    expect((await s().listModelConnections()).map((x) => x.name)).toEqual(["local"]);
    const g = {
      agent: "a",
      plugin: "p",
      connection: "local",
      maxTokens: null,
      maxCalls: 3,
      period: "month" as const,
      updatedAt: "t",
    };
    await s().putModelGrant(g);
    expect(await s().getModelGrant("a", "p")).toEqual(g);
    expect(await s().listModelGrants("a")).toEqual([g]);
    expect(await s().deleteModelConnection("local")).toBe(true);
    expect(await s().getModelGrant("a", "p")).toBeNull();
    expect(await s().deleteModelConnection("local")).toBe(false);
  });

  it("admits model calls only under the period's call and token budgets", async () => {
    const admitted: boolean[] = [];
    for (let i = 0; i < 4; i++) admitted.push(await s().reserveModelCall("a", "p", "2026-12-01", 3, null));
    expect(admitted).toEqual([true, true, true, false]);
    expect(await s().getModelUsage("a", "p", "2026-12-01")).toMatchObject({ calls: 3, tokens: 0 });
    expect(await s().reserveModelCall("a", "p", "2026-12-02", 3, null)).toBe(true);
    expect(await s().reserveModelCall("a", "q", "total", null, 100)).toBe(true);
    await s().addModelTokens("a", "q", "total", 60);
    expect(await s().reserveModelCall("a", "q", "total", null, 100)).toBe(true);
    await s().addModelTokens("a", "q", "total", 60);
    expect(await s().reserveModelCall("a", "q", "total", null, 100)).toBe(false);
    expect(await s().getModelUsage("a", "q", "total")).toMatchObject({ calls: 2, tokens: 120 });
    expect(await s().reserveModelCall("a", "z", "total", 0, null)).toBe(false);
    expect(await s().getModelUsage("a", "z", "total")).toBeNull();
  });

  it("never passes a call budget when calls race", async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => s().reserveModelCall("a", "race", "total", 5, null)),
    );
    expect(results.filter(Boolean)).toHaveLength(5);
    expect((await s().getModelUsage("a", "race", "total"))?.calls).toBe(5);
  });
}
