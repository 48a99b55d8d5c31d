// Hostile model-written code against run_code's scratch store, on a real host: off by default
// (no `scratch` global, nothing stored), another conversation's and another agent's values out
// of reach, oversize values and too many keys refused with their codes, the per-call op cap, and
// the operator turning it off again. Each test asserts the code, that the host still serves a
// normal run_code call and a direct call, and that neither the canary secret nor the other
// agent's scratch value appears in any output, audit entry or host log line. In-process sandbox:
// the store is host-side, the same code for both sandbox modes (test/hostile/code-mode.test.ts
// covers the isolate's own attacks in workers mode).
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AirlockHost, ToolCallOutcome } from "../../host/src/contracts/host.ts";
import { type CodeModeHost, startCodeModeHost } from "../support/code-mode-host.ts";

const CANARY = "canary-5c7a7c4-secret-value";
const OTHER = "zebrascratchcanary";
let fx: CodeModeHost;
let host: AirlockHost;
const logs: string[] = [];
const outputs: string[] = [];

beforeAll(async () => {
  fx = await startCodeModeHost({
    mode: "in-process",
    plugins: ["render", "upload"],
    agents: ["alpha", "beta"],
    host: { onInternalError: (what, error) => logs.push(`${what}: ${String(error)}`) },
  });
  host = fx.host;
  await host.setSecrets("alpha", { upload_token: CANARY });
  await host.setCodeMode("alpha", { enabled: true, limits: { cpuMs: 2_000, wallMs: 60_000 } });
  await host.setCodeMode("beta", { enabled: true, scratch: true });
  const beta = await run("beta", "shared", `await scratch.set("note", ${JSON.stringify(OTHER)}); return 1;`);
  expect(beta.errorCode, JSON.stringify(beta.result)).toBeUndefined();
}, 180_000);
afterAll(async () => {
  await fx?.close();
});

async function run(agent: string, conversationId: string, code: string): Promise<ToolCallOutcome> {
  const r = await host.startRun({ agent, conversationId, autoApprove: true });
  const outcome = await r.call("run_code", { code });
  outputs.push(JSON.stringify(outcome));
  return outcome;
}

const answerOf = (o: ToolCallOutcome) => (o.result.structuredContent as { value?: unknown }).value;
const errorOf = (o: ToolCallOutcome) =>
  (o.result.structuredContent as { error?: Record<string, unknown> }).error ?? {};

async function expectHealthy(): Promise<void> {
  const ok = await run("alpha", "shared", "return 1 + 1;");
  expect(answerOf(ok)).toBe(2);
  const direct = await (await host.startRun({ agent: "alpha" })).call("render:renderChart", { values: [1] });
  expect(direct.errorCode).toBeUndefined();
  const audit = JSON.stringify(await host.queryAudit({ limit: 1000 }));
  for (const text of [...outputs, audit, ...logs]) {
    expect(text).not.toContain(CANARY);
  }
  for (const text of [...outputs.slice(1), ...logs]) expect(text).not.toContain(OTHER);
}

describe("run_code's scratch store under attack", () => {
  it("is off by default: no scratch global, and a guess at it stores nothing", async () => {
    expect((await host.getCodeMode("alpha")).scratch).toBe(false);
    const probe = await run(
      "alpha",
      "shared",
      "return { scratch: typeof scratch, state: typeof globalThis.state, ctx: typeof ctx };",
    );
    expect(answerOf(probe)).toEqual({ scratch: "undefined", state: "undefined", ctx: "undefined" });
    const guess = await run("alpha", "shared", 'await scratch.set("k", 1); return 1;');
    expect(guess.errorCode).toBe("AIRLOCK_CODE_THREW");
    expect(String(errorOf(guess).message)).toContain("scratch is not defined");
    await expectHealthy();
  }, 120_000);

  it("keeps values per conversation: another conversation and another agent read nothing", async () => {
    await host.setCodeMode("alpha", {
      scratch: true,
      limits: { scratchMaxValueBytes: 64, scratchMaxKeys: 3 },
    });
    const wrote = await run(
      "alpha",
      "conv-a",
      'await scratch.set("plan", { step: 1 }); return await scratch.keys();',
    );
    expect(answerOf(wrote)).toEqual(["plan"]);
    const again = await run("alpha", "conv-a", 'return await scratch.get("plan");');
    expect(answerOf(again)).toEqual({ step: 1 });
    const other = await run("alpha", "conv-b", 'return [await scratch.get("plan"), await scratch.keys()];');
    expect(answerOf(other)).toEqual([null, []]);
    // beta wrote "note" in a conversation of the same id: alpha's scratch of it is its own
    const sameId = await run(
      "alpha",
      "shared",
      'return [await scratch.get("note") ?? null, await scratch.keys(), await scratch.get("../beta/note") ?? null];',
    );
    expect(answerOf(sameId)).toEqual([null, [], null]);
    const traversal = await run("alpha", "shared", 'return await scratch.get("a b");');
    expect(traversal.errorCode).toBe("AIRLOCK_CODE_THREW");
    expect(errorOf(traversal).innerCall).toMatchObject({
      tool: "scratch.get",
      code: "AIRLOCK_CODE_SCRATCH_KEY_INVALID",
    });
    await expectHealthy();
  }, 120_000);

  it("refuses an oversize value and a key past scratchMaxKeys with AIRLOCK_CODE_SCRATCH_TOO_LARGE, storing nothing", async () => {
    const big = await run("alpha", "conv-big", 'await scratch.set("big", "x".repeat(100_000)); return 1;');
    expect(big.errorCode).toBe("AIRLOCK_CODE_THREW");
    expect(errorOf(big).innerCall).toMatchObject({
      tool: "scratch.set",
      code: "AIRLOCK_CODE_SCRATCH_TOO_LARGE",
    });
    const caught = await run(
      "alpha",
      "conv-big",
      `for (const k of ["a", "b", "c"]) await scratch.set(k, 1);
       try { await scratch.set("d", 1); } catch (e) { return [e.code, await scratch.keys()]; }
       return "stored";`,
    );
    expect(answerOf(caught)).toEqual(["AIRLOCK_CODE_SCRATCH_TOO_LARGE", ["a", "b", "c"]]);
    const refusals = await host.queryAudit({ agent: "alpha", kind: "capability", limit: 100 });
    expect(refusals.filter((e) => e.error === "AIRLOCK_CODE_SCRATCH_TOO_LARGE").length).toBe(2);
    await expectHealthy();
  }, 120_000);

  it("stops a scratch loop at scratchMaxOps with AIRLOCK_CODE_SCRATCH_OPS_LIMIT", async () => {
    await host.setCodeMode("alpha", { limits: { scratchMaxOps: 5 } });
    const loop = await run("alpha", "conv-ops", 'for (;;) await scratch.get("k");');
    expect(loop.errorCode).toBe("AIRLOCK_CODE_THREW");
    expect(errorOf(loop).innerCall).toMatchObject({ code: "AIRLOCK_CODE_SCRATCH_OPS_LIMIT" });
    const audit = await host.queryAudit({ agent: "alpha", tool: "run_code", kind: "tool", limit: 1 });
    expect(audit[0]?.details).toMatchObject({ scratchOps: 5 });
    await expectHealthy();
  }, 120_000);

  it("turned off again, the code has no scratch and the values stay out of reach", async () => {
    await host.setCodeMode("alpha", { scratch: false });
    const off = await run("alpha", "conv-a", "return typeof scratch;");
    expect(answerOf(off)).toBe("undefined");
    await host.setCodeMode("alpha", { scratch: true });
    const back = await run("alpha", "conv-a", 'return await scratch.get("plan");');
    expect(answerOf(back)).toEqual({ step: 1 });
    await expectHealthy();
  }, 120_000);
});

describe("the scratch example of docs/code-mode.md", () => {
  it("runs as printed and keeps its list across calls of one conversation", async () => {
    const doc = await readFile(new URL("../../docs/code-mode.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("## The scratch store"));
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    expect(code).toContain("scratch.set");
    expect(answerOf(await run("alpha", "doc-example", code))).toEqual(["seen"]);
    await run("alpha", "doc-example", code);
    const seen = await run("alpha", "doc-example", 'return await scratch.get("seen");');
    expect(answerOf(seen)).toEqual(["week-12", "week-12"]);
  }, 120_000);
});
