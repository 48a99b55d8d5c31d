// Code mode through the library API, against the first-party plugins (in-process sandbox; the
// hostile suite runs the worker mode): settings, listing, search_tools, run_code chaining tools,
// inner calls audited under their run_code call, errors the model can act on, limits.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AirlockHost, Run } from "../../host/src/contracts/host.ts";
import { type CodeModeHost, startCodeModeHost } from "../support/code-mode-host.ts";

let fx: CodeModeHost;
let host: AirlockHost;
const textOf = (r: { content: Array<{ type: string; text?: string }> }) =>
  r.content.map((p) => p.text ?? "").join("");

beforeAll(async () => {
  fx = await startCodeModeHost({ mode: "in-process", plugins: ["notes", "render"], agents: ["alpha"] });
  host = fx.host;
}, 120_000);
afterAll(async () => {
  await fx?.close();
});

async function codeRun(): Promise<Run> {
  return host.startRun({ agent: "alpha", conversationId: "c1", autoApprove: true });
}

describe("code mode settings", () => {
  it("is off by default and adds nothing to the listing", async () => {
    expect((await host.getCodeMode("alpha")).enabled).toBe(false);
    const run = await codeRun();
    expect(run.tools().map((t) => t.wireName)).not.toContain("run_code");
    const outcome = await run.call("run_code", { code: "return 1" });
    expect(outcome.errorCode).toBe("AIRLOCK_TOOL_NOT_EXPOSED");
  });

  it("refuses a bad change whole and keeps what was stored", async () => {
    await expect(host.setCodeMode("alpha", { enabled: true, limits: { cpuMs: 5 } })).rejects.toMatchObject({
      code: "AIRLOCK_CODE_SETTINGS_INVALID",
    });
    await expect(host.setCodeMode("alpha", { enabled: true, bogus: 1 } as never)).rejects.toMatchObject({
      code: "AIRLOCK_CODE_SETTINGS_INVALID",
    });
    expect((await host.getCodeMode("alpha")).enabled).toBe(false);
    await expect(host.getCodeMode("nobody")).rejects.toMatchObject({ code: "AIRLOCK_AGENT_NOT_FOUND" });
  });

  it("when on, lists search_tools and run_code beside the agent's tools (only those two when exclusive)", async () => {
    const on = await host.setCodeMode("alpha", { enabled: true });
    expect(on).toMatchObject({ enabled: true, exclusive: false, limits: { maxInnerCalls: 50 } });
    const names = (await codeRun()).tools().map((t) => t.wireName);
    expect(names).toEqual(expect.arrayContaining(["search_tools", "run_code", "notes__searchNotes"]));
    await host.setCodeMode("alpha", { exclusive: true });
    expect((await codeRun()).tools().map((t) => t.wireName)).toEqual(["search_tools", "run_code"]);
    await host.setCodeMode("alpha", { exclusive: false });
  });
});

describe("search_tools", () => {
  it("answers TypeScript declarations of the matching tools, with doc comments", async () => {
    const outcome = await (await codeRun()).call("search_tools", { query: "chart" });
    const text = textOf(outcome.result);
    expect(outcome.errorCode).toBeUndefined();
    expect(text).toContain("declare namespace tools.render {");
    expect(text).toContain("function renderChart(input: {");
    expect(text).toContain("/** One bar per value. (minItems 1, maxItems 200) */ values: number[];");
    expect(text).toContain("width?: number | null;");
    expect(text).toContain("Read-only. */");
    expect(text).not.toContain("notes");
  });

  it("answers one line per tool with detail names, and refuses bad input with its code", async () => {
    const run = await codeRun();
    const brief = textOf((await run.call("search_tools", { query: "notes", detail: "names" })).result);
    expect(brief).toContain("tools.notes.searchNotes(input) — Search the agent's notes");
    const bad = await run.call("search_tools", { query: 3 });
    expect(bad.errorCode).toBe("AIRLOCK_CODE_INPUT_INVALID");
  });
});

describe("run_code", () => {
  it("chains tools and returns the value and the log; each inner call is audited under it", async () => {
    const run = await codeRun();
    const code = `
      const w: { id: string } = await tools.notes.writeNote({ title: "Sales", content: "sales 3 5 8", id: null, mode: null });
      const found = await tools.notes.searchNotes({ query: "sales" });
      console.log("hits", found.hits.length);
      const chart = await tools.render.renderChart({ values: [3, 5, 8] });
      return { wrote: typeof w.id, hits: found.hits.length, mime: chart.mime };
    `;
    const outcome = await run.call("run_code", { code });
    expect(outcome.errorCode, textOf(outcome.result)).toBeUndefined();
    expect(outcome.result.structuredContent).toEqual({
      value: { wrote: "string", hits: 1, mime: "image/png" },
      log: "hits 1\n",
    });
    const entries = await host.queryAudit({ agent: "alpha", kind: "tool", limit: 20 });
    const inner = entries.filter((e) => e.details?.parentCallId === outcome.callId);
    expect(inner.map((e) => `${e.plugin}:${e.tool}`).sort()).toEqual([
      "notes:searchNotes",
      "notes:writeNote",
      "render:renderChart",
    ]);
    const own = entries.find((e) => e.details?.callId === outcome.callId);
    expect(own).toMatchObject({ plugin: "airlock", tool: "run_code", success: true });
    expect(own?.details?.innerCallCount).toBe(3);
  });

  it("answers a throw with its message, line and the inner call that failed with its code", async () => {
    const run = await codeRun();
    const code = "const a = 1;\nconst r = await tools.render.renderChart({ values: 'no' });\nreturn r;";
    const outcome = await run.call("run_code", { code });
    expect(outcome.errorCode).toBe("AIRLOCK_CODE_THREW");
    const error = (outcome.result.structuredContent as { error: Record<string, unknown> }).error;
    expect(error).toMatchObject({
      line: 2,
      innerCall: { tool: "render:renderChart", code: "AIRLOCK_TOOL_INPUT_INVALID" },
    });
    expect(String(error.message)).toContain("Invalid input for render:renderChart");

    const typeError = await run.call("run_code", { code: "\n\nnull.x;" });
    expect(typeError.errorCode).toBe("AIRLOCK_CODE_THREW");
    expect((typeError.result.structuredContent as { error: { line: number } }).error.line).toBe(3);
  });

  it("reports a syntax error with its line, TypeScript types stripped otherwise", async () => {
    const run = await codeRun();
    const bad = await run.call("run_code", { code: "const x = 1;\nconst y = ;" });
    expect(bad.errorCode).toBe("AIRLOCK_CODE_SYNTAX");
    expect((bad.result.structuredContent as { error: { line: number } }).error.line).toBe(2);
    const ts = await run.call("run_code", {
      code: "interface P { n: number }\nconst p: P = { n: 2 };\nreturn (p.n as number) * 21;",
    });
    expect(ts.result.structuredContent).toEqual({ value: 42 });
  });
});
