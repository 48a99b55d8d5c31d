// Validation messages and failing tools through the real pipeline: every failure is an error
// result with a stable code, the host keeps serving, and no secret value reaches any output.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FixturePlugin } from "./test-fixtures.ts";
import { openTestHost, type TestHost } from "./test-host.ts";

const RO = { readOnlyHint: true };
const SECRET = "tok-super-secret-value-42";
const tools: FixturePlugin = {
  namespace: "lab",
  limits: { cpuMs: 300, wallMs: 1_500, maxResultBytes: 4_096 },
  tools: [
    {
      name: "greet",
      code: "async (input) => ({ greeting: 'hi ' + input.name, count: input.times })",
      annotations: RO,
      inputSchema: {
        type: "object",
        properties: {
          name: { type: "string" },
          times: { type: "integer", minimum: 1 },
          tone: { type: "string", enum: ["warm", "dry"] },
        },
        required: ["name"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: { greeting: { type: "string" }, count: { type: "integer" } },
        required: ["greeting", "count"],
      },
    },
    { name: "refuse", code: "async () => ({ success: false, error: 'city not found' })", annotations: RO },
    { name: "crash", code: "async () => { throw new Error('kaboom'); }", annotations: RO },
    { name: "spin", code: "async () => { for (;;) {} }", annotations: RO },
    { name: "hang", code: "async () => new Promise(() => {})", annotations: RO },
    { name: "huge", code: "async () => 'x'.repeat(100000)", annotations: RO },
    // ~3 KB of data under a 4 KB limit: sent as structuredContent and as its JSON text
    { name: "structured", code: "async () => ({ s: 'x'.repeat(3000) })", annotations: RO },
    {
      name: "leak",
      code: "async (input, ctx) => { const v = await ctx.secrets.get('token'); throw new Error('got ' + v.length + ' chars'); }",
      annotations: RO,
      requiredSecrets: [{ key: "token", type: "text", optional: false, sensitive: true }],
    },
  ],
};

let t: TestHost;
beforeEach(async () => {
  t = await openTestHost([tools]);
  await t.host.createAgent("ada");
  await t.host.setToolsEnabled("ada", Object.fromEntries(tools.tools.map((x) => [`lab:${x.name}`, true])));
  await t.host.setSecrets("ada", { token: SECRET });
});
afterEach(async () => t.close());

const text = (o: { result: { content: Array<{ type: string; text?: string }> } }) =>
  o.result.content[0]?.text ?? "";

async function stillServing(): Promise<void> {
  const out = await t.host.callTool("ada", "lab:greet", { name: "Ada", times: 1 });
  expect(out.errorCode).toBeUndefined();
  expect(out.result.structuredContent).toEqual({ greeting: "hi Ada", count: 1 });
}

describe("input and output validation", () => {
  it("refuses an invalid input with every path and what is expected, before the tool runs", async () => {
    const out = await t.host.callTool("ada", "lab:greet", { times: "3", tone: "loud", extra: 1 });
    expect(out.errorCode).toBe("AIRLOCK_TOOL_INPUT_INVALID");
    expect(out.result.isError).toBe(true);
    const message = text(out);
    expect(message).toContain('input: missing required property "name"');
    expect(message).toContain("input.times: expected integer, got string");
    expect(message).toContain('input.tone: expected one of "warm", "dry"');
    expect(message).toContain('input: unexpected property "extra"');
    const [audit] = await t.host.queryAudit({ agent: "ada", kind: "tool" });
    expect(audit).toMatchObject({ allowed: false, error: "AIRLOCK_TOOL_INPUT_INVALID" });
  });

  it("refuses an input that is not a JSON object, without throwing", async () => {
    expect((await t.host.callTool("ada", "lab:greet", "Ada")).errorCode).toBe("AIRLOCK_TOOL_INPUT_INVALID");
    const cyclic: Record<string, unknown> = { name: "x" };
    cyclic.self = cyclic;
    expect((await t.host.callTool("ada", "lab:greet", cyclic)).errorCode).toBe("AIRLOCK_TOOL_INPUT_INVALID");
    expect((await t.host.callTool("ada", "lab:greet", { name: 1n })).errorCode).toBe(
      "AIRLOCK_TOOL_INPUT_INVALID",
    );
    await stillServing();
  });

  it("refuses a result whose structuredContent breaks the declared output schema", async () => {
    // `times` omitted: the tool returns {greeting} without the required integer count.
    const out = await t.host.callTool("ada", "lab:greet", { name: "Ada" });
    expect(out.errorCode).toBe("AIRLOCK_TOOL_OUTPUT_INVALID");
    expect(text(out)).toContain('output: missing required property "count"');
  });
});

describe("failing tools are error results and the host keeps serving", () => {
  it("a tool reporting its own failure completes with isError and AIRLOCK_TOOL_REPORTED_ERROR", async () => {
    const completed: boolean[] = [];
    t.host.on("tool.completed", (e) => completed.push(e.isError));
    const out = await t.host.callTool("ada", "lab:refuse", {});
    expect(out.result).toEqual({ content: [{ type: "text", text: "city not found" }], isError: true });
    expect(out.errorCode).toBe("AIRLOCK_TOOL_REPORTED_ERROR");
    expect(completed).toEqual([true]);
  });

  it("a throwing tool", async () => {
    const out = await t.host.callTool("ada", "lab:crash", {});
    expect(out.result.isError).toBe(true);
    expect(out.errorCode).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
    expect(text(out)).toContain("kaboom");
    await stillServing();
  });

  it("a tool spinning in a loop is stopped at its CPU limit", async () => {
    const out = await t.host.callTool("ada", "lab:spin", {});
    expect(out.result.isError).toBe(true);
    expect(out.errorCode).toMatch(/^AIRLOCK_(SANDBOX_CPU_LIMIT|TOOL_TIMEOUT)$/);
    await stillServing();
  });

  it("a tool that never settles is abandoned at its wall deadline, always as AIRLOCK_TOOL_TIMEOUT", async () => {
    const out = await t.host.callTool("ada", "lab:hang", {});
    expect(out.result.isError).toBe(true);
    expect(out.errorCode).toBe("AIRLOCK_TOOL_TIMEOUT");
    await stillServing();
  });

  it("a result over the plugin's maxResultBytes", async () => {
    const out = await t.host.callTool("ada", "lab:huge", {});
    expect(out.result.isError).toBe(true);
    expect(out.errorCode).toBe("AIRLOCK_SANDBOX_RESULT_TOO_LARGE");
    await stillServing();
  });

  it("counts a structured result once against maxResultBytes, not with its text mirror again", async () => {
    const out = await t.host.callTool("ada", "lab:structured", {});
    expect(out.errorCode).toBeUndefined();
    expect(out.result.structuredContent).toEqual({ s: "x".repeat(3000) });
    expect(text(out)).toBe(JSON.stringify({ s: "x".repeat(3000) }));
  });

  it("a cancelled call", async () => {
    const controller = new AbortController();
    const call = t.host.callTool("ada", "lab:hang", {}, { agent: "ada", signal: controller.signal });
    setImmediate(() => controller.abort());
    expect((await call).errorCode).toBe("AIRLOCK_TOOL_CANCELLED");
    await stillServing();
  });

  it("a bundle altered on disk after install is never loaded", async () => {
    const [plugin] = await (await t.store()).listInstalledPlugins("lab");
    await writeFile(join(plugin?.path ?? "", "index.js"), "globalThis.__airlockPlugin = {};");
    const out = await t.host.callTool("ada", "lab:greet", { name: "x", times: 1 });
    expect(out.errorCode).toBe("AIRLOCK_PLUGIN_INTEGRITY_MISMATCH");
  });

  it("no secret value appears in outcomes, events or the audit", async () => {
    const seen: unknown[] = [];
    for (const type of ["tool.started", "tool.completed", "tool.failed"] as const)
      t.host.on(type, (e) => seen.push(e));
    const out = await t.host.callTool("ada", "lab:leak", {});
    expect(text(out)).toContain(`got ${SECRET.length} chars`);
    const audit = await t.host.queryAudit({ agent: "ada" });
    expect(audit.some((a) => a.kind === "capability" && a.action === "secrets.get")).toBe(true);
    const everything = JSON.stringify([out, seen, audit, await t.host.listSecrets("ada")]);
    expect(everything).not.toContain(SECRET);
    await stillServing();
  });
});
