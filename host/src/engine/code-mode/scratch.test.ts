// The scratch store against a real SQLite store: values per agent and conversation, JSON only,
// the caps (value, keys, bytes, ops) refused with their codes and nothing stored, expiry after
// scratchTtlSeconds, off refusing everything; every refusal audited.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasCode } from "@airlock/sdk";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openStore } from "../../state/store/index.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import { createScratch, type Scratch, type ScratchBinding } from "./scratch.ts";
import { DEFAULT_CODE_MODE_LIMITS } from "./settings.ts";

let dir: string;
let store: Store;
const audits: AuditInput[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "airlock-scratch-"));
  store = await openStore({ kind: "sqlite", dataDir: dir });
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function scratch(over: Partial<ScratchBinding> = {}, limits: Record<string, number> = {}): Scratch {
  return createScratch({
    enabled: true,
    store,
    agent: "alpha",
    conversationId: "c1",
    runId: "run-1",
    callId: "call-1",
    limits: { ...DEFAULT_CODE_MODE_LIMITS, ...limits },
    audit: async (entry) => {
      audits.push(entry);
    },
    ...over,
  });
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    return hasCode(error) ? error.code : `not coded: ${String(error)}`;
  }
  return "resolved";
}

describe("scratch store", () => {
  test("keeps JSON values per agent and conversation, and nowhere else", async () => {
    const s = scratch();
    await s.call("set", ["plan", { step: 2, done: ["a"] }]);
    expect(await s.call("get", ["plan"])).toEqual({ step: 2, done: ["a"] });
    expect(await scratch().call("keys", [])).toEqual(["plan"]);
    expect(await scratch({ conversationId: "c2" }).call("get", ["plan"])).toBeUndefined();
    expect(await scratch({ agent: "beta" }).call("get", ["plan"])).toBeUndefined();
    expect(await scratch({ agent: "beta" }).call("keys", [])).toEqual([]);
    await s.call("delete", ["plan"]);
    expect(await s.call("get", ["plan"])).toBeUndefined();
    expect(s.ops).toBe(4);
  });

  test("refuses bad keys, non-JSON values and oversize values with their codes, storing nothing", async () => {
    const s = scratch({ conversationId: "c-bad" }, { scratchMaxValueBytes: 32 });
    expect(await codeOf(s.call("set", ["has space", 1]))).toBe("AIRLOCK_CODE_SCRATCH_KEY_INVALID");
    expect(await codeOf(s.call("get", ["x".repeat(129)]))).toBe("AIRLOCK_CODE_SCRATCH_KEY_INVALID");
    expect(await codeOf(s.call("set", ["k", undefined]))).toBe("AIRLOCK_CODE_SCRATCH_VALUE_INVALID");
    expect(await codeOf(s.call("set", ["k", "y".repeat(40)]))).toBe("AIRLOCK_CODE_SCRATCH_TOO_LARGE");
    expect(await s.call("keys", [])).toEqual([]);
    const refusals = audits.filter((a) => a.conversationId === "c-bad");
    expect(refusals.map((a) => a.error)).toEqual([
      "AIRLOCK_CODE_SCRATCH_KEY_INVALID",
      "AIRLOCK_CODE_SCRATCH_KEY_INVALID",
      "AIRLOCK_CODE_SCRATCH_VALUE_INVALID",
      "AIRLOCK_CODE_SCRATCH_TOO_LARGE",
    ]);
    expect(refusals.every((a) => a.allowed === false && a.agent === "alpha")).toBe(true);
  });

  test("holds a conversation to scratchMaxKeys and scratchMaxBytes; an overwrite of a kept key is fine", async () => {
    const keys = scratch({ conversationId: "c-keys" }, { scratchMaxKeys: 2 });
    await keys.call("set", ["a", 1]);
    await keys.call("set", ["b", 2]);
    expect(await codeOf(keys.call("set", ["c", 3]))).toBe("AIRLOCK_CODE_SCRATCH_TOO_LARGE");
    await keys.call("set", ["a", 10]);
    expect(await keys.call("keys", [])).toEqual(["a", "b"]);
    const bytes = scratch({ conversationId: "c-bytes" }, { scratchMaxBytes: 120 });
    await bytes.call("set", ["a", "x".repeat(40)]);
    expect(await codeOf(bytes.call("set", ["b", "x".repeat(60)]))).toBe("AIRLOCK_CODE_SCRATCH_TOO_LARGE");
    expect(await bytes.call("get", ["b"])).toBeUndefined();
    expect(await bytes.call("get", ["a"])).toBe("x".repeat(40));
  });

  test("forgets a value scratchTtlSeconds after its last set, and expired values free their room", async () => {
    let now = 1_000_000;
    const clock = { now: () => now };
    const s = scratch({ conversationId: "c-ttl", ...clock }, { scratchTtlSeconds: 10, scratchMaxKeys: 1 });
    await s.call("set", ["k", "v"]);
    now += 9_000;
    expect(await s.call("get", ["k"])).toBe("v");
    now += 2_000;
    expect(await s.call("get", ["k"])).toBeUndefined();
    await s.call("set", ["k2", "w"]);
    expect(await s.call("keys", [])).toEqual(["k2"]);
  });

  test("stops at scratchMaxOps, and refuses everything when off", async () => {
    const s = scratch({ conversationId: "c-ops" }, { scratchMaxOps: 2 });
    await s.call("keys", []);
    await s.call("get", ["a"]);
    expect(await codeOf(s.call("get", ["a"]))).toBe("AIRLOCK_CODE_SCRATCH_OPS_LIMIT");
    const off = scratch({ enabled: false, conversationId: "c-off" });
    expect(await codeOf(off.call("set", ["a", 1]))).toBe("AIRLOCK_CODE_SCRATCH_OFF");
    expect(await codeOf(off.call("keys", []))).toBe("AIRLOCK_CODE_SCRATCH_OFF");
    expect(await scratch({ conversationId: "c-off" }).call("keys", [])).toEqual([]);
    expect(await codeOf(scratch().call("list", []))).toBe("AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY");
  });
});
