// The core capabilities (secrets, state, audit, progress/log) called through the real bridge
// over the real SQLite store and vault.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretSource, createSecretWriter, createVault } from "../../state/secrets/index.ts";
import { openStore } from "../../state/store/index.ts";
import type { Store } from "../../state/store/types.ts";
import { type Bridge, createBridge } from "../bridge/bridge.ts";
import type { CallGrant, CallNotification } from "../bridge/types.ts";
import { fixtureManifest } from "../sandbox/plugin-fixture.ts";
import { createAuditCapability, MAX_OUTPUT_CHARS } from "./audit.ts";
import { createNotifyCapabilities, MAX_NOTIFY_MESSAGE } from "./notify.ts";
import { createSecretsCapability } from "./secrets.ts";
import { createStateCapability } from "./state.ts";

const manifest = fixtureManifest("corecaps", "1.0.0", "/* code */", [{ name: "tool", secrets: ["api_key"] }]);

describe("core capabilities", () => {
  let dir: string;
  let store: Store;
  let bridge: Bridge;
  const notes: CallNotification[] = [];
  const grant = (agent = "agent-1", conversationId = "conv-1"): CallGrant =>
    bridge.issueGrant({
      agent,
      conversationId,
      manifest,
      tool: "tool",
      knowledgeLevel: null,
      capabilityCalls: 100,
      notify: (n) => notes.push(n),
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "airlock-caps-"));
    store = await openStore({ kind: "sqlite", dataDir: dir });
    const vault = createVault(randomBytes(32));
    for (const agent of ["agent-1", "agent-2"]) await store.ensureAgent(agent);
    const writer = createSecretWriter({ store, vault });
    await writer.put("agent-1", "api_key", "value-1");
    await writer.put("agent-1", "other", "undeclared");
    await writer.put("agent-2", "api_key", "value-2");
    bridge = createBridge({
      audit: (e) => store.appendAudit(e),
      capabilities: [
        createSecretsCapability({ source: createSecretSource({ store, vault }) }),
        createStateCapability({ store, maxStateBytes: 100 }),
        createAuditCapability({ store }),
        ...createNotifyCapabilities(),
      ],
    });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers a declared secret for the grant's agent only, and undefined for anything else", async () => {
    expect(await bridge.dispatch(grant("agent-1").token, "secrets", "get", ["api_key"])).toBe("value-1");
    expect(await bridge.dispatch(grant("agent-2").token, "secrets", "get", ["api_key"])).toBe("value-2");
    expect(await bridge.dispatch(grant("agent-1").token, "secrets", "get", ["other"])).toBeUndefined();
    await expect(bridge.dispatch(grant().token, "secrets", "get", [42])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_ARGS_INVALID",
    });
    const rows = await store.queryAudit({ kind: "capability" });
    expect(JSON.stringify(rows)).not.toMatch(/value-1|value-2|undeclared|other/);
    expect(
      rows.map((r) => [
        r.action,
        r.allowed,
        r.error,
        (r.details as { reason?: string } | null)?.reason ?? null,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ["secrets.get", false, "AIRLOCK_SECRETS_UNDECLARED", "key_not_declared"],
        ["secrets.get", true, null, null],
      ]),
    );
  });

  it("scopes state by agent, conversation and namespace, and caps its size", async () => {
    const g = grant("agent-1", "c-1");
    await bridge.dispatch(g.token, "state", "set", ["k", { a: 1 }]);
    expect(await bridge.dispatch(g.token, "state", "get", ["k"])).toEqual({ a: 1 });
    expect(await bridge.dispatch(grant("agent-1", "c-2").token, "state", "get", ["k"])).toBeUndefined();
    expect(await bridge.dispatch(grant("agent-2", "c-1").token, "state", "get", ["k"])).toBeUndefined();
    await expect(bridge.dispatch(g.token, "state", "set", ["big", "x".repeat(200)])).rejects.toMatchObject({
      code: "AIRLOCK_STATE_TOO_LARGE",
    });
    await expect(bridge.dispatch(g.token, "state", "set", ["k", undefined])).rejects.toMatchObject({
      code: "AIRLOCK_STATE_INVALID",
    });
    await expect(bridge.dispatch(g.token, "state", "get", [""])).rejects.toMatchObject({
      code: "AIRLOCK_STATE_INVALID",
    });
    expect(await bridge.dispatch(g.token, "state", "keys", [])).toEqual(["k"]);
    await bridge.dispatch(g.token, "state", "delete", ["k"]);
    expect(await bridge.dispatch(g.token, "state", "keys", [])).toEqual([]);
  });

  it("writes plugin audit entries attributed by the grant, truncating output and refusing bad shapes", async () => {
    const g = grant("agent-2", "c-9");
    await bridge.dispatch(g.token, "audit", "log", [
      {
        action: "sent.mail",
        success: false,
        error: "smtp down",
        durationMs: 12.4,
        output: "o".repeat(MAX_OUTPUT_CHARS + 10),
      },
    ]);
    const [row] = await store.queryAudit({ kind: "plugin", agent: "agent-2" });
    expect(row).toMatchObject({
      plugin: "corecaps",
      tool: "tool",
      conversationId: "c-9",
      action: "sent.mail",
      success: false,
      error: "smtp down",
      durationMs: 12,
    });
    expect(String(row?.details?.output)).toMatch(/…\(truncated\)$/);
    for (const bad of [
      null,
      [],
      { action: "" },
      { action: "x", plugin: "forged" },
      { action: "x", details: [1] },
      { action: "x", durationMs: -1 },
      { action: "x", details: { big: "y".repeat(20_000) } },
    ]) {
      await expect(bridge.dispatch(g.token, "audit", "log", [bad])).rejects.toMatchObject({
        code: "AIRLOCK_AUDIT_ENTRY_INVALID",
      });
    }
  });

  it("delivers progress and log notifications, validating numbers and levels and capping messages", async () => {
    const g = grant();
    notes.length = 0;
    await bridge.dispatch(g.token, "progress", "report", [1, 4, "a"]);
    await bridge.dispatch(g.token, "progress", "report", [2]);
    await bridge.dispatch(g.token, "log", "write", ["warning", "m".repeat(MAX_NOTIFY_MESSAGE + 5)]);
    expect(notes[0]).toEqual({ type: "progress", progress: 1, total: 4, message: "a" });
    expect(notes[1]).toEqual({ type: "progress", progress: 2 });
    expect(notes[2]).toMatchObject({ type: "log", level: "warning" });
    expect((notes[2] as { message: string }).message).toHaveLength(MAX_NOTIFY_MESSAGE);
    await expect(bridge.dispatch(g.token, "progress", "report", [Number.NaN])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_ARGS_INVALID",
    });
    await expect(bridge.dispatch(g.token, "log", "write", ["fatal", "x"])).rejects.toMatchObject({
      code: "AIRLOCK_BRIDGE_ARGS_INVALID",
    });
  });
});
