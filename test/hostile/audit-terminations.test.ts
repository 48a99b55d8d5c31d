// Hostile, end to end through the real host in the workers sandbox (the default): calls ended by
// one of their own limits, wherever in the call the limit fired — the tool's body, a getter of
// its result that the promise machinery reads, a proxy trap the result copy reaches, a toJSON
// the tool's own JSON.stringify calls, a flood of timers, a result too large to copy, the wall
// deadline (the output check's own limit: stages/audit.test.ts). Each call ends with its exact code and gets
// exactly one termination row naming the limit (kind "tool", action "call.terminated",
// details {name, limit}) beside its one call row; the host keeps serving and no canary appears
// in any output, audit row or report of the host's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";
import type { AuditRecord } from "../../host/src/state/store/types.ts";

const CANARY = "sk-terminations-4f1d2a7c";
const CPU = 120;
const WALL = 1_500;
const RESULT = 4_096;

const tools: Array<{ name: string; code: string }> = [
  { name: "loop", code: "async () => { for (;;) {} }" },
  // a getter of the result: resolving the tool's promise reads `then`
  { name: "thenGetter", code: "async () => ({ get then() { for (;;) {} } })" },
  // a getter the result copy reaches: the descriptor of a proxy's key
  {
    name: "descriptorTrap",
    code: "async () => new Proxy({ a: 1 }, { getOwnPropertyDescriptor() { for (;;) {} } })",
  },
  // the result's toJSON, reached by the tool's own JSON.stringify of it
  {
    name: "toJsonBurn",
    code: "async () => { const result = { toJSON() { for (;;) {} } }; return { content: [{ type: 'text', text: JSON.stringify(result) }] }; }",
  },
  { name: "timers", code: "async () => { for (;;) setTimeout(() => {}, 60_000); }" },
  { name: "bigCopy", code: `async () => ({ text: "x".repeat(${RESULT * 4}) })` },
  { name: "sleeps", code: "async () => { await new Promise(() => {}); }" },
  { name: "echo", code: "async (input) => ({ echoed: input })" },
];

describe("calls ended by a limit get one termination row (workers)", () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await openTestHost(
      [
        {
          namespace: "burner",
          tools: tools.map((x) => ({
            ...x,
            annotations: { readOnlyHint: true },
            inputSchema: { type: "object" },
            requiredSecrets: [{ key: "api_key", type: "text" as const, optional: false, sensitive: true }],
          })),
          limits: { cpuMs: CPU, wallMs: WALL, maxResultBytes: RESULT },
        },
      ],
      // no CPU move (docs/sandbox.md, CPU share): the suite's one plugin stays in the shared worker,
      // so a call after a CPU-limit end does not wait for a worker's start within WALL (1.5 s)
      { sandbox: { mode: "workers", workers: 1, cpuShare: { moveAfter: 0 } } },
    );
    await t.host.createAgent("ada");
    await t.host.setToolsEnabled("ada", Object.fromEntries(tools.map((x) => [`burner:${x.name}`, true])));
    await t.host.setSecrets("ada", { api_key: CANARY });
  }, 60_000);
  afterAll(async () => t?.close());

  async function expectHealthy(): Promise<void> {
    const out = await t.host.callTool("ada", "burner:echo", { still: "alive" });
    expect(out.errorCode).toBeUndefined();
    expect(out.result.structuredContent).toEqual({ echoed: { still: "alive" } });
    const everything =
      JSON.stringify(await t.host.queryAudit({ limit: 100_000 })) +
      t.internalErrors.map((e) => `${e.what} ${String(e.error)}`).join("\n");
    expect(everything).not.toContain(CANARY);
  }

  it.each([
    ["loop", "AIRLOCK_SANDBOX_CPU_LIMIT", "cpuMs", CPU],
    ["thenGetter", "AIRLOCK_SANDBOX_CPU_LIMIT", "cpuMs", CPU],
    ["descriptorTrap", "AIRLOCK_SANDBOX_CPU_LIMIT", "cpuMs", CPU],
    ["toJsonBurn", "AIRLOCK_SANDBOX_CPU_LIMIT", "cpuMs", CPU],
    ["timers", "AIRLOCK_SANDBOX_TIMER_LIMIT", "timers", 1000],
    ["bigCopy", "AIRLOCK_SANDBOX_RESULT_TOO_LARGE", "maxResultBytes", RESULT],
    ["sleeps", "AIRLOCK_TOOL_TIMEOUT", "wallMs", WALL],
  ] as const)("%s ends with %s and one termination row naming %s", async (tool, code, name, limit) => {
    const out = await t.host.callTool("ada", `burner:${tool}`, {});
    expect(out.errorCode).toBe(code);
    expect(JSON.stringify(out)).not.toContain(CANARY);
    const rows: AuditRecord[] = (await t.host.queryAudit({ kind: "tool", tool, limit: 100 })).reverse();
    expect(rows.map((r) => [r.action, r.error])).toEqual([
      ["call.terminated", code],
      ["call", code],
    ]);
    expect(rows[0]).toMatchObject({
      plugin: "burner",
      success: false,
      details: { name, limit, callId: out.callId },
    });
    await expectHealthy();
  });

  it("writes no termination row for a call that ends well or fails without a limit", async () => {
    await t.host.callTool("ada", "burner:echo", { ok: true });
    const rows = await t.host.queryAudit({ kind: "tool", tool: "echo", limit: 100 });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.action === "call")).toBe(true);
    await expectHealthy();
  });
});
