// Hostile model-written code in run_code, in the worker-process sandbox: escapes toward the host,
// an endless loop (before and after an await), a memory bomb, tools the agent may not call
// (not enabled, a harness tool, another agent's data), a forged caller, the inner-call and
// inner-bytes caps, a huge log. Each test asserts the exact code, that the host still serves a
// normal run_code call and a direct call, and that the canary secret appears in no output, no
// audit entry and no host log line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AirlockHost, Run, ToolCallOutcome } from "../../host/src/contracts/host.ts";
import { type CodeModeHost, startCodeModeHost } from "../support/code-mode-host.ts";

const CANARY = "canary-51c0de-secret-value";
const OTHER = "zebracanary";
let fx: CodeModeHost;
let host: AirlockHost;
const logs: string[] = [];
const outputs: string[] = [];

const TIGHT = {
  cpuMs: 300,
  wallMs: 20_000,
  memoryMb: 16,
  maxInnerCalls: 5,
  maxInnerBytes: 64 * 1024,
  maxLogBytes: 1024,
};

beforeAll(async () => {
  fx = await startCodeModeHost({
    mode: "workers",
    plugins: ["notes", "render", "upload", "room"],
    agents: ["alpha", "beta"],
    host: { onInternalError: (what, error) => logs.push(`${what}: ${String(error)}`) },
  });
  host = fx.host;
  await host.setSecrets("alpha", { upload_token: CANARY });
  await host.setToolsEnabled("alpha", { "notes:listNotes": false });
  const beta = await host.startRun({ agent: "beta", conversationId: "c-beta", autoApprove: true });
  const wrote = await beta.call("notes:writeNote", {
    title: "private",
    content: `beta only ${OTHER}`,
    id: null,
    mode: null,
  });
  expect(wrote.errorCode).toBeUndefined();
  await host.setCodeMode("alpha", { enabled: true, limits: TIGHT });
}, 180_000);
afterAll(async () => {
  await fx?.close();
});

async function alphaRun(harness?: string[]): Promise<Run> {
  return host.startRun({
    agent: "alpha",
    conversationId: "c-alpha",
    autoApprove: true,
    ...(harness === undefined ? {} : { harness }),
  });
}

async function runCode(code: string, run?: Run): Promise<ToolCallOutcome> {
  const outcome = await (run ?? (await alphaRun())).call("run_code", { code });
  outputs.push(JSON.stringify(outcome));
  return outcome;
}

const errorOf = (o: ToolCallOutcome) =>
  (o.result.structuredContent as { error: Record<string, unknown> } | undefined)?.error ?? {};

async function expectHealthy(): Promise<void> {
  const ok = await runCode("return 1 + 1;");
  expect(ok.result.structuredContent).toEqual({ value: 2 });
  const direct = await (await alphaRun()).call("render:renderChart", { values: [1] });
  expect(direct.errorCode).toBeUndefined();
  const audit = JSON.stringify(await host.queryAudit({ limit: 1000 }));
  for (const text of [...outputs, audit, ...logs]) expect(text).not.toContain(CANARY);
}

describe("run_code under attack (workers)", () => {
  it("reaches nothing of the host: no process, require, fetch, bridge or runtime internals (timers only the bounded ones)", async () => {
    const outcome = await runCode(`
      const probe = (f) => { try { return typeof f(); } catch (e) { return "threw"; } };
      return {
        process: typeof process, require: typeof require, fetch: typeof fetch,
        setTimeout: typeof setTimeout, setInterval: typeof setInterval, WebAssembly: typeof WebAssembly,
        SharedArrayBuffer: typeof SharedArrayBuffer, bridge: typeof __airlockBridge, send: typeof __airlockSend,
        plugin: typeof __airlockPlugin, ctx: typeof ctx,
        viaFunction: probe(() => Function("return typeof process")() === "undefined" ? undefined : 1),
        viaTools: probe(() => tools.notes.searchNotes.constructor("return this.process")()),
        globals: Object.getOwnPropertyNames(globalThis).filter((n) => /^(tools|console|__|ivm|_ivm)/.test(n)).sort(),
        toolsWritable: probe(() => { tools.notes = 1; return tools.notes === 1 ? 1 : undefined; }),
      };
    `);
    expect(outcome.errorCode, JSON.stringify(outcome.result)).toBeUndefined();
    expect((outcome.result.structuredContent as { value: unknown }).value).toEqual({
      process: "undefined",
      require: "undefined",
      fetch: "undefined",
      // the sandbox's bounded timers (docs/sandbox.md): they die with the call
      setTimeout: "function",
      setInterval: "function",
      WebAssembly: "undefined",
      SharedArrayBuffer: "undefined",
      bridge: "undefined",
      send: "undefined",
      plugin: "undefined",
      ctx: "undefined",
      viaFunction: "undefined",
      viaTools: "undefined",
      globals: ["console", "tools"],
      toolsWritable: "undefined",
    });
    await expectHealthy();
  }, 60_000);

  it("gives every call a fresh context: nothing one call leaves in its globals reaches the next", async () => {
    const first = await runCode(
      "globalThis.leak = 'left by call one'; Object.prototype.polluted = 1; return 1;",
    );
    expect(first.errorCode).toBeUndefined();
    const second = await runCode("return [typeof leak, typeof ({}).polluted];");
    expect((second.result.structuredContent as { value: unknown }).value).toEqual(["undefined", "undefined"]);
    await expectHealthy();
  }, 60_000);

  // The probe that ended a call with AIRLOCK_SANDBOX_INTERNAL: a tool call whose rejection nobody
  // handles (started in a timer, its arguments not plain data). isolated-vm throws such a
  // rejection out of the isolate in place of the entry's result; the frames' receivers and
  // functions the user's prepareStackTrace asks for stay undefined (strict runtime frames).
  it("ends a run that leaves a promise rejected with no handler with AIRLOCK_CODE_THREW, getThis() probes and all", async () => {
    const probes = [
      `Error.prepareStackTrace = (e, frames) => frames.map((f) => f.getThis());
      setTimeout(() => tools.notes.searchNotes(Symbol()), 1);
      await new Promise((r) => setTimeout(r, 30));
      return 1;`,
      `Error.prepareStackTrace = (e, frames) => frames.map((f) => [f.getThis(), f.getFunction()]);
      try { await tools.notes.searchNotes(() => 1); } catch (e) { void e.stack; }
      try { null.x; } catch (e) { void e.stack; }
      Promise.reject(new Error("left behind"));
      return 1;`,
      // a throw in a timer callback is the code's too, not the sandbox failing
      `setTimeout(() => { null.x; }, 1); await new Promise((r) => setTimeout(r, 30)); return 1;`,
    ];
    const messages = [
      "the code left a promise rejected with no handler: Error: notes:searchNotes: arguments to ctx.tools.call must be plain data",
      "the code left a promise rejected with no handler: Error: left behind",
      "Cannot read properties of null (reading 'x')",
    ];
    for (const [i, code] of probes.entries()) {
      const outcome = await runCode(code);
      expect(outcome.errorCode).toBe("AIRLOCK_CODE_THREW");
      expect(errorOf(outcome).message).toBe(messages[i]);
      await expectHealthy();
    }
  }, 60_000);

  it("stops an endless loop with AIRLOCK_CODE_CPU_LIMIT, before and after an await", async () => {
    const sync = await runCode("while (true) {}");
    expect(sync.errorCode).toBe("AIRLOCK_CODE_CPU_LIMIT");
    const later = await runCode("await tools.render.renderChart({ values: [1] }); for (;;) {}");
    expect(later.errorCode).toBe("AIRLOCK_CODE_CPU_LIMIT");
    await expectHealthy();
  }, 60_000);

  it("stops a memory bomb with AIRLOCK_CODE_MEMORY_LIMIT (heap and ArrayBuffers)", async () => {
    await host.setCodeMode("alpha", { limits: { ...TIGHT, cpuMs: 10_000 } });
    try {
      const heap = await runCode("const a = []; for (;;) a.push({ n: a.length, s: 'x' + a.length });");
      expect(heap.errorCode).toBe("AIRLOCK_CODE_MEMORY_LIMIT");
      const buffers = await runCode("const a = []; for (;;) a.push(new ArrayBuffer(1 << 20));");
      expect(buffers.errorCode).toBe("AIRLOCK_CODE_MEMORY_LIMIT");
    } finally {
      await host.setCodeMode("alpha", { limits: TIGHT });
    }
    await expectHealthy();
  }, 60_000);

  it("refuses a tool the agent has not enabled through the pipeline, audited under the run_code call", async () => {
    const outcome = await runCode("return await tools.notes.listNotes({ all: true, limit: null });");
    expect(outcome.errorCode).toBe("AIRLOCK_CODE_THREW");
    expect(errorOf(outcome).innerCall).toMatchObject({
      tool: "notes:listNotes",
      code: "AIRLOCK_TOOL_NOT_EXPOSED",
    });
    const entries = await host.queryAudit({ agent: "alpha", kind: "tool", limit: 50 });
    const inner = entries.find((e) => e.details?.parentCallId === outcome.callId);
    expect(inner).toMatchObject({
      tool: "notes:listNotes",
      allowed: false,
      error: "AIRLOCK_TOOL_NOT_EXPOSED",
    });
    await expectHealthy();
  }, 60_000);

  it("refuses a harness tool with AIRLOCK_CODE_HARNESS_TOOL even in a run that has it", async () => {
    const run = await alphaRun(["room"]);
    expect(run.tools().map((t) => t.id)).toContain("room:post_event");
    const outcome = await runCode("return await tools.room.list_open_events({});", run);
    expect(errorOf(outcome).innerCall).toMatchObject({
      tool: "room:list_open_events",
      code: "AIRLOCK_CODE_HARNESS_TOOL",
    });
    const entries = await host.queryAudit({ agent: "alpha", kind: "tool", limit: 50 });
    expect(entries.find((e) => e.details?.parentCallId === outcome.callId)).toMatchObject({
      plugin: "room",
      tool: "list_open_events",
      allowed: false,
      error: "AIRLOCK_CODE_HARNESS_TOOL",
    });
    const search = await run.call("search_tools", { query: "*", limit: 50 });
    expect(JSON.stringify(search.result)).not.toContain("room");
    await expectHealthy();
  }, 60_000);

  it("cannot act as another agent: a forged caller in the input is refused, other agents' data unseen", async () => {
    const forged = await runCode(
      `return await tools.notes.searchNotes({ query: "${OTHER}", limit: null, agent: "beta", instanceId: "beta" });`,
    );
    expect(errorOf(forged).innerCall).toMatchObject({ code: "AIRLOCK_TOOL_INPUT_INVALID" });
    const search = await runCode(`return await tools.notes.searchNotes({ query: "${OTHER}", limit: null });`);
    expect(search.errorCode).toBeUndefined();
    expect(JSON.stringify(search.result)).not.toContain(OTHER);
    const entries = await host.queryAudit({ kind: "tool", limit: 100 });
    for (const e of entries.filter((x) => x.details?.parentCallId !== undefined)) {
      expect(e.agent).toBe("alpha");
      expect(e.conversationId).toBe("c-alpha");
    }
    await expectHealthy();
  }, 60_000);

  it("ends the run at the inner-call cap with AIRLOCK_CODE_INNER_CALL_LIMIT, even when the code catches", async () => {
    const outcome = await runCode(
      "for (let i = 0; i < 100; i++) { try { await tools.render.renderChart({ values: [i + 1] }); } catch {} }\nreturn 'done';",
    );
    expect(outcome.errorCode).toBe("AIRLOCK_CODE_INNER_CALL_LIMIT");
    const entries = await host.queryAudit({ agent: "alpha", kind: "tool", limit: 200 });
    expect(entries.filter((e) => e.details?.parentCallId === outcome.callId)).toHaveLength(
      TIGHT.maxInnerCalls,
    );
    await expectHealthy();
  }, 60_000);

  it("ends the run when inner results pass maxInnerBytes (AIRLOCK_CODE_INNER_BYTES_LIMIT)", async () => {
    await host.setCodeMode("alpha", { limits: { ...TIGHT, maxInnerBytes: 40 } });
    try {
      const outcome = await runCode(
        "const c = await tools.render.renderChart({ values: [1, 2] });\nreturn c;",
      );
      expect(outcome.errorCode).toBe("AIRLOCK_CODE_INNER_BYTES_LIMIT");
    } finally {
      await host.setCodeMode("alpha", { limits: TIGHT });
    }
    await expectHealthy();
  }, 60_000);

  it("caps a huge log at maxLogBytes and says it was cut", async () => {
    const outcome = await runCode(
      // 2 MB of log against a 1 KB cap, in well under cpuMs (100,000 lines took most of it)
      "for (let i = 0; i < 20000; i++) console.log('x'.repeat(100), i);\nreturn 'ok';",
    );
    expect(outcome.errorCode).toBeUndefined();
    const out = outcome.result.structuredContent as { value: string; log: string; logTruncated: boolean };
    expect(out.value).toBe("ok");
    expect(out.logTruncated).toBe(true);
    expect(Buffer.byteLength(out.log)).toBeLessThanOrEqual(TIGHT.maxLogBytes);
    await expectHealthy();
  }, 60_000);

  it("never hands the code a secret: an inner tool that uses one answers without it", async () => {
    const outcome = await runCode(
      "return await tools.upload.uploadArtifact({ handle: 'nope', destination: null });",
    );
    expect(errorOf(outcome).innerCall).toMatchObject({
      tool: "upload:uploadArtifact",
      code: "AIRLOCK_TOOL_REPORTED_ERROR",
    });
    await expectHealthy();
  }, 60_000);
});
