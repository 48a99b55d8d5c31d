// Hostile: widening a grant — reading an undeclared secret, replaying a finished call's ctx or
// token, reaching another agent's context or state, forging or guessing tokens at the bridge.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { Harness } from "../support/sandbox-harness.ts";
import { MODES } from "../support/sandbox-harness.ts";
import { CANARY, DECLARED_VALUE, expectContained, hostileSetup } from "../support/sandbox-hostile.ts";

describe.each(MODES)("grant widening attempts (%s)", (mode) => {
  let h: Harness;
  let plugin: SandboxPlugin;
  beforeAll(async () => {
    ({ h, plugin } = await hostileSetup(mode));
  });
  afterAll(async () => h.close());

  it("reads an undeclared secret, and keys like __proto__, as undefined", async () => {
    for (const key of ["canary_key", "__proto__", "constructor", "toString"]) {
      const result = await h.call(plugin, "readSecret", { key });
      expect(result.structuredContent).toEqual({ value: "undefined" });
    }
    expect((await h.call(plugin, "readSecret", { key: "api_key" })).structuredContent).toEqual({
      value: DECLARED_VALUE,
    });
    await expectContained(h, plugin);
  });

  it("refuses a finished call's ctx reused by a later call with AIRLOCK_BRIDGE_TOKEN_INVALID", async () => {
    await h.call(plugin, "stash", { note: "first call" }, { agent: "replayer" });
    const result = await h.call(plugin, "replay", {}, { agent: "replayer" });
    expect(result.structuredContent).toEqual({ code: "AIRLOCK_BRIDGE_TOKEN_INVALID" });
    await expectContained(h, plugin, "replayer");
  });

  it("refuses a revoked token and a guessed one at the bridge, and audits both as denied", async () => {
    const grant = h.bridge.issueGrant({
      agent: "agent-a",
      conversationId: "c",
      manifest: plugin.manifest,
      tool: "readSecret",
      knowledgeLevel: null,
      capabilityCalls: 10,
    });
    expect(await h.bridge.dispatch(grant.token, "secrets", "get", ["api_key"])).toBe(DECLARED_VALUE);
    h.bridge.revoke(grant.token);
    expect(grant.signal.aborted).toBe(true);
    await expect(h.bridge.dispatch(grant.token, "secrets", "get", ["api_key"])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_TOKEN_INVALID",
    });
    await expect(h.bridge.dispatch("A".repeat(43), "secrets", "get", ["canary_key"])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_TOKEN_INVALID",
    });
    const denied = h.audits.filter((a) => a.error === "AIRLOCK_BRIDGE_TOKEN_INVALID" && a.allowed === false);
    expect(denied.length).toBeGreaterThanOrEqual(2);
    await expectContained(h, plugin);
  });

  it("gives another agent a fresh context: no globals, no stashed ctx, no state of the first agent", async () => {
    await h.call(plugin, "stash", { note: CANARY.slice(0, 6) }, { agent: "owner" });
    await h.call(plugin, "setState", { value: "owner-state" }, { agent: "owner" });
    const peek = await h.call(plugin, "peek", {}, { agent: "intruder" });
    expect(peek.structuredContent).toEqual({ note: "undefined", stash: "undefined", state: "none" });
    const own = await h.call(plugin, "peek", {}, { agent: "owner" });
    expect(own.structuredContent).toEqual({ note: "string", stash: "object", state: "owner-state" });
    await expectContained(h, plugin, "intruder");
  });
});
