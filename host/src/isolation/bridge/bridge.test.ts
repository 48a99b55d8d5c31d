// The bridge on its own: grants and tokens, the checks every dispatch runs, and what it audits.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { AuditInput } from "../../state/store/types.ts";
import { fixtureManifest } from "../sandbox/plugin-fixture.ts";
import { createBridge, ENDED_KEPT } from "./bridge.ts";
import { DENIAL_KINDS_PER_CALL, DENIAL_ROWS_PER_KIND, denied } from "./denials.ts";
import { bridgeError } from "./errors.ts";
import type { Capability } from "./types.ts";

const manifest = fixtureManifest("bridged", "1.0.0", "/* code */", [{ name: "tool", secrets: ["api_key"] }]);

function setup(extra: Capability[] = [], audit?: (e: AuditInput) => Promise<void>) {
  const audits: AuditInput[] = [];
  const seen: unknown[] = [];
  const echo: Capability = {
    name: "echo",
    methods: {
      async say(grant, args) {
        seen.push({ agent: grant.agent, tool: grant.toolId, args });
        return args[0];
      },
      async refuse() {
        throw bridgeError("AIRLOCK_BRIDGE_ARGS_INVALID", "refused");
      },
      async crash() {
        throw new Error("internal detail");
      },
    },
  };
  const bridge = createBridge({
    capabilities: [echo, ...extra],
    audit:
      audit ??
      (async (e) => {
        audits.push(e);
      }),
  });
  const grant = bridge.issueGrant({
    agent: "agent-1",
    conversationId: "conv-1",
    manifest,
    tool: "tool",
    knowledgeLevel: null,
    capabilityCalls: 3,
  });
  return { bridge, grant, audits, seen };
}

describe("bridge", () => {
  it("issues unguessable 32-byte base64url tokens bound to the call's agent, tool and declared secrets", () => {
    const { bridge, grant } = setup();
    expect(grant.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(grant).toMatchObject({
      agent: "agent-1",
      namespace: "bridged",
      pluginVersion: "1.0.0",
      toolId: "bridged:tool",
    });
    expect([...grant.declaredSecrets]).toEqual(["api_key"]);
    const other = bridge.issueGrant({
      agent: "a",
      conversationId: "c",
      manifest,
      tool: "tool",
      knowledgeLevel: null,
      capabilityCalls: 1,
    });
    expect(other.token).not.toBe(grant.token);
    expect(bridge.liveGrants).toBe(2);
  });

  it("refuses a grant for a tool the manifest does not list", () => {
    const { bridge } = setup();
    expect(() =>
      bridge.issueGrant({
        agent: "a",
        conversationId: "c",
        manifest,
        tool: "ghost",
        knowledgeLevel: null,
        capabilityCalls: 1,
      }),
    ).toThrow(expect.objectContaining({ code: "AIRLOCK_BRIDGE_ARGS_INVALID" }));
  });

  it("runs a handler with the issued grant and audits the allowed call without its arguments", async () => {
    const { bridge, grant, audits, seen } = setup();
    expect(await bridge.dispatch(grant.token, "echo", "say", ["secret-ish argument"])).toBe(
      "secret-ish argument",
    );
    expect(seen).toEqual([{ agent: "agent-1", tool: "bridged:tool", args: ["secret-ish argument"] }]);
    expect(audits).toEqual([
      expect.objectContaining({
        kind: "capability",
        action: "echo.say",
        allowed: true,
        success: true,
        agent: "agent-1",
        plugin: "bridged",
        tool: "tool",
      }),
    ]);
    expect(JSON.stringify(audits)).not.toContain("secret-ish");
  });

  it("refuses unknown capabilities and methods, including inherited names", async () => {
    const { bridge, audits } = setup();
    const grant = bridge.issueGrant({
      agent: "a",
      conversationId: "c",
      manifest,
      tool: "tool",
      knowledgeLevel: null,
      capabilityCalls: 10,
    });
    const attempts = [
      ["nope", "x"],
      ["echo", "nope"],
      ["echo", "constructor"],
      ["echo", "__proto__"],
      ["echo", "toString"],
      ["__proto__", "x"],
    ];
    for (const [cap, method] of attempts) {
      await expect(bridge.dispatch(grant.token, cap!, method!, [])).rejects.toMatchObject({
        code: "AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY",
      });
    }
    expect(audits).toHaveLength(attempts.length);
    expect(audits.every((a) => a.allowed === false)).toBe(true);
  });

  it("ends the call at capabilityCalls: one AIRLOCK_BRIDGE_CALL_LIMIT row with the limit, the grant aborted, later attempts counted", async () => {
    const audits: AuditInput[] = [];
    const bridge = createBridge({
      capabilities: [{ name: "echo", methods: { say: async (_g, a) => a[0] } }],
      audit: async (e) => {
        audits.push(e);
      },
    });
    const ends: unknown[] = [];
    const grant = bridge.issueGrant({
      agent: "agent-1",
      conversationId: "conv-1",
      manifest,
      tool: "tool",
      knowledgeLevel: null,
      capabilityCalls: 3,
      end: (reason) => ends.push(reason),
    });
    for (let i = 0; i < 3; i++) await bridge.dispatch(grant.token, "echo", "say", [i]);
    for (let i = 0; i < 50; i++) {
      await expect(bridge.dispatch(grant.token, "echo", "say", [i])).rejects.toMatchObject({
        code: "AIRLOCK_BRIDGE_CALL_LIMIT",
        details: { name: "capabilityCalls", limit: 3 },
      });
    }
    expect(grant.signal.aborted).toBe(true);
    expect(grant.signal.reason).toMatchObject({ code: "AIRLOCK_BRIDGE_CALL_LIMIT" });
    expect(ends).toHaveLength(1);
    const limitRows = audits.filter((a) => a.error === "AIRLOCK_BRIDGE_CALL_LIMIT");
    expect(limitRows).toEqual([
      expect.objectContaining({ allowed: false, details: { name: "capabilityCalls", limit: 3 } }),
    ]);
    expect(audits).toHaveLength(4);
    bridge.revoke(grant.token);
    await new Promise((r) => setImmediate(r));
    expect(audits.slice(4)).toEqual([
      expect.objectContaining({
        action: "bridge.denials_suppressed",
        allowed: false,
        error: "AIRLOCK_BRIDGE_DENIALS_SUPPRESSED",
        details: {
          denials: 50,
          rowsWritten: 1,
          suppressed: 49,
          kinds: [{ action: "echo.say", error: "AIRLOCK_BRIDGE_CALL_LIMIT", count: 50, written: 1 }],
        },
      }),
    ]);
  });

  it("writes at most DENIAL_ROWS_PER_KIND denial rows per kind and counts every kind in full in one row", async () => {
    const audits: AuditInput[] = [];
    const bridge = createBridge({ capabilities: [], audit: async (e) => void audits.push(e) });
    const grant = bridge.issueGrant({
      agent: "agent-1",
      conversationId: "conv-1",
      manifest,
      tool: "tool",
      knowledgeLevel: null,
      capabilityCalls: 1000,
    });
    for (let i = 0; i < 100; i++) {
      await expect(bridge.dispatch(grant.token, "nope", "x", [])).rejects.toMatchObject({
        code: "AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY",
      });
    }
    expect(audits).toHaveLength(DENIAL_ROWS_PER_KIND);
    bridge.revoke(grant.token);
    // replays of the ended call's token count against the same call; a new kind is written
    for (let i = 0; i < 10; i++) {
      await expect(bridge.dispatch(grant.token, "nope", "x", [])).rejects.toMatchObject({
        code: "AIRLOCK_BRIDGE_TOKEN_INVALID",
      });
    }
    await new Promise((r) => setImmediate(r));
    expect(audits.slice(DENIAL_ROWS_PER_KIND, DENIAL_ROWS_PER_KIND + 1)).toEqual([
      expect.objectContaining({
        error: "AIRLOCK_BRIDGE_DENIALS_SUPPRESSED",
        details: {
          denials: 100,
          rowsWritten: DENIAL_ROWS_PER_KIND,
          suppressed: 100 - DENIAL_ROWS_PER_KIND,
          kinds: [
            {
              action: "*",
              error: "AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY",
              count: 100,
              written: DENIAL_ROWS_PER_KIND,
            },
          ],
        },
      }),
    ]);
    expect(audits.slice(DENIAL_ROWS_PER_KIND + 1)).toHaveLength(10);
    expect(audits.at(-1)).toMatchObject({ action: "nope.x", error: "AIRLOCK_BRIDGE_TOKEN_INVALID" });
    expect(audits.every((a) => a.allowed === false && a.agent === "agent-1")).toBe(true);
  });

  it("always writes a denial of a kind the call has not shown yet, however many came before", async () => {
    const audits: AuditInput[] = [];
    const quiet: Capability = {
      name: "vault",
      methods: {
        async peek() {
          return denied(undefined, "AIRLOCK_SECRETS_UNDECLARED", "key_not_declared");
        },
        async take(_grant, args) {
          return denied(
            null,
            "AIRLOCK_ARTIFACT_UNAVAILABLE",
            args[0] === "bad" ? "malformed" : "unavailable",
          );
        },
      },
    };
    const bridge = createBridge({ capabilities: [quiet], audit: async (e) => void audits.push(e) });
    const grant = bridge.issueGrant({
      agent: "agent-1",
      conversationId: "conv-1",
      manifest,
      tool: "tool",
      knowledgeLevel: null,
      capabilityCalls: 1000,
    });
    // a flood of one kind, then one of each other kind, then the flood again
    for (let i = 0; i < 200; i++)
      expect(await bridge.dispatch(grant.token, "vault", "take", ["bad"])).toBeNull();
    expect(await bridge.dispatch(grant.token, "vault", "peek", [])).toBeUndefined();
    expect(await bridge.dispatch(grant.token, "vault", "take", ["art_foreign"])).toBeNull();
    for (let i = 0; i < 100; i++) await bridge.dispatch(grant.token, "vault", "take", ["bad"]);
    const detailed = audits.map((a) => [a.action, a.error, (a.details as { reason?: string }).reason]);
    expect(detailed).toEqual([
      ...Array.from({ length: DENIAL_ROWS_PER_KIND }, () => [
        "vault.take",
        "AIRLOCK_ARTIFACT_UNAVAILABLE",
        "malformed",
      ]),
      ["vault.peek", "AIRLOCK_SECRETS_UNDECLARED", "key_not_declared"],
      ["vault.take", "AIRLOCK_ARTIFACT_UNAVAILABLE", "unavailable"],
    ]);
    bridge.revoke(grant.token);
    await new Promise((r) => setImmediate(r));
    expect(audits.at(-1)).toMatchObject({
      action: "bridge.denials_suppressed",
      details: {
        denials: 302,
        rowsWritten: DENIAL_ROWS_PER_KIND + 2,
        kinds: [
          { action: "vault.take", error: "AIRLOCK_ARTIFACT_UNAVAILABLE", reason: "malformed", count: 300 },
          { action: "vault.peek", error: "AIRLOCK_SECRETS_UNDECLARED", reason: "key_not_declared", count: 1 },
          { action: "vault.take", error: "AIRLOCK_ARTIFACT_UNAVAILABLE", reason: "unavailable", count: 1 },
        ],
      },
    });
  });

  it("bounds the kinds a call tallies apart: past DENIAL_KINDS_PER_CALL they count as one", async () => {
    const audits: AuditInput[] = [];
    const many: Capability = { name: "many", methods: {} };
    for (let i = 0; i < DENIAL_KINDS_PER_CALL + 10; i++) {
      (many.methods as Record<string, Capability["methods"][string]>)[`m${i}`] = async () =>
        denied(null, "AIRLOCK_ARTIFACT_UNAVAILABLE", "unavailable");
    }
    const bridge = createBridge({ capabilities: [many], audit: async (e) => void audits.push(e) });
    const grant = bridge.issueGrant({
      agent: "agent-1",
      conversationId: "conv-1",
      manifest,
      tool: "tool",
      knowledgeLevel: null,
      capabilityCalls: 10_000,
    });
    for (let round = 0; round < 20; round++)
      for (let i = 0; i < DENIAL_KINDS_PER_CALL + 10; i++)
        await bridge.dispatch(grant.token, "many", `m${i}`, []);
    bridge.revoke(grant.token);
    await new Promise((r) => setImmediate(r));
    const summary = audits.at(-1)?.details as {
      denials: number;
      kinds: Array<{ action: string; count: number }>;
    };
    expect(summary.denials).toBe(20 * (DENIAL_KINDS_PER_CALL + 10));
    expect(summary.kinds).toHaveLength(DENIAL_KINDS_PER_CALL + 1);
    expect(summary.kinds.at(-1)).toMatchObject({ action: "*", count: 200 });
    expect(audits.length).toBeLessThanOrEqual((DENIAL_KINDS_PER_CALL + 1) * DENIAL_ROWS_PER_KIND + 1);
  });

  it("revokes: the token stops resolving and the grant's signal aborts", async () => {
    const { bridge, grant, audits } = setup();
    bridge.revoke(grant.token);
    bridge.revoke(grant.token);
    expect(grant.signal.aborted).toBe(true);
    expect(bridge.liveGrants).toBe(0);
    await expect(bridge.dispatch(grant.token, "echo", "say", [1])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_TOKEN_INVALID",
    });
    // A token of an ended call is attributed to that call (not to nobody) and bounded with it.
    expect(audits).toEqual([
      expect.objectContaining({ allowed: false, agent: "agent-1", error: "AIRLOCK_BRIDGE_TOKEN_INVALID" }),
    ]);
  });

  it("remembers the last ENDED_KEPT ended calls: older tokens are unknown, their counted replays summarised", async () => {
    const audits: AuditInput[] = [];
    const bridge = createBridge({ capabilities: [], audit: async (e) => void audits.push(e) });
    const issue = (agent: string) =>
      bridge.issueGrant({
        agent,
        conversationId: "c",
        manifest,
        tool: "tool",
        knowledgeLevel: null,
        capabilityCalls: 5,
      });
    const first = issue("first");
    bridge.revoke(first.token);
    // replays past the row cap are counted, to be summarised when the call is forgotten
    for (let i = 0; i < DENIAL_ROWS_PER_KIND + 3; i++) {
      await expect(bridge.dispatch(first.token, "nope", "x", [])).rejects.toMatchObject({
        code: "AIRLOCK_BRIDGE_TOKEN_INVALID",
      });
    }
    const tokens = [first.token];
    for (let i = 1; i < ENDED_KEPT; i++) {
      const g = issue(`a${i}`);
      tokens.push(g.token);
      bridge.revoke(g.token);
    }
    // still remembered: attributed to its call
    audits.length = 0;
    await expect(bridge.dispatch(first.token, "nope", "x", [])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_TOKEN_INVALID",
    });
    expect(audits).toEqual([]); // counted, past the row cap
    const next = issue("next");
    bridge.revoke(next.token); // the ring is full: `first` is forgotten, with its summary row
    await new Promise((r) => setImmediate(r));
    expect(audits).toEqual([
      expect.objectContaining({
        agent: "first",
        error: "AIRLOCK_BRIDGE_DENIALS_SUPPRESSED",
        details: expect.objectContaining({ suppressed: 4, rowsWritten: DENIAL_ROWS_PER_KIND, denials: 20 }),
      }),
    ]);
    audits.length = 0;
    await expect(bridge.dispatch(first.token, "nope", "x", [])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_TOKEN_INVALID",
    });
    expect(audits).toEqual([expect.objectContaining({ agent: null, error: "AIRLOCK_BRIDGE_TOKEN_INVALID" })]);
    // the second-oldest is still attributed to its own call
    audits.length = 0;
    await expect(bridge.dispatch(tokens[1] as string, "nope", "x", [])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_TOKEN_INVALID",
    });
    expect(audits).toEqual([expect.objectContaining({ agent: "a1" })]);
  });

  it("remembers an ended call without its grant: what the call's closures hold can be collected", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const audits: AuditInput[] = [];
    const bridge = createBridge({ capabilities: [], audit: async (e) => void audits.push(e) });
    const refs: Array<WeakRef<object>> = [];
    // a call made and ended in a frame of its own, so nothing of it stays on this one's stack
    const endOne = (i: number): string => {
      const request = { body: new Uint8Array(1 << 16) }; // what a real call's closures capture
      const grant = bridge.issueGrant({
        agent: `agent-${i}`,
        conversationId: "c",
        manifest,
        tool: "tool",
        knowledgeLevel: null,
        capabilityCalls: 1,
        notify: () => void request.body.byteLength,
        end: () => void request.body.byteLength,
      });
      refs.push(new WeakRef(request), new WeakRef(grant));
      bridge.revoke(grant.token);
      return grant.token;
    };
    const tokens = Array.from({ length: 8 }, (_, i) => endOne(i));
    await new Promise((r) => setImmediate(r));
    gc();
    expect(refs.map((r, i) => (r.deref() === undefined ? -1 : i)).filter((i) => i >= 0)).toEqual([]);
    // the tokens are still remembered and their replays attributed to their calls
    await expect(bridge.dispatch(tokens[3] as string, "nope", "x", [])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_TOKEN_INVALID",
    });
    expect(audits).toEqual([
      expect.objectContaining({ agent: "agent-3", tool: "tool", conversationId: "c" }),
    ]);
  });

  it("passes a handler's AirlockError through and hides any other failure behind AIRLOCK_BRIDGE_FAILED", async () => {
    const { bridge, grant, audits } = setup();
    await expect(bridge.dispatch(grant.token, "echo", "refuse", [])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_ARGS_INVALID",
    });
    const crash = await bridge.dispatch(grant.token, "echo", "crash", []).catch((e: Error) => e);
    expect(crash).toMatchObject({ code: "AIRLOCK_BRIDGE_FAILED", message: "echo.crash failed" });
    expect(audits.map((a) => [a.allowed, a.success, a.error])).toEqual([
      [true, false, "AIRLOCK_BRIDGE_ARGS_INVALID"],
      [true, false, "AIRLOCK_BRIDGE_FAILED"],
    ]);
  });

  it("does not audit calls of a capability that audits itself", async () => {
    const self: Capability = {
      name: "quiet",
      auditedByBridge: () => false,
      methods: {
        async m() {
          return 1;
        },
      },
    };
    const { bridge, grant, audits } = setup([self]);
    expect(await bridge.dispatch(grant.token, "quiet", "m", [])).toBe(1);
    expect(audits).toEqual([]);
  });

  it("refuses the call when its audit entry cannot be written", async () => {
    const { bridge, grant } = setup([], async () => {
      throw new Error("disk full");
    });
    await expect(bridge.dispatch(grant.token, "echo", "say", [1])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_AUDIT_FAILED",
    });
  });

  it("ends the grant when the host's signal aborts", () => {
    const { bridge } = setup();
    const controller = new AbortController();
    const grant = bridge.issueGrant({
      agent: "a",
      conversationId: "c",
      manifest,
      tool: "tool",
      knowledgeLevel: null,
      capabilityCalls: 1,
      signal: controller.signal,
    });
    controller.abort();
    expect(grant.signal.aborted).toBe(true);
  });
});
