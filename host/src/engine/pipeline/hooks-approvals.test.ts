// Hooks, approvals and events through the real pipeline (SQLite store, in-process sandbox).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AfterToolCallContext, HostEventMap, PendingApproval } from "../../contracts/host.ts";
import type { FixturePlugin } from "./test-fixtures.ts";
import { openTestHost, type TestHost } from "./test-host.ts";

const files: FixturePlugin = {
  namespace: "files",
  tools: [
    {
      name: "read",
      code: "async (input) => 'read ' + input.path",
      annotations: { readOnlyHint: true },
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      presentation: { label: "Read file", icon: "file", group: "fs" },
    },
    {
      name: "write",
      code: "async (input) => 'wrote ' + input.path",
      annotations: { destructiveHint: true },
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      presentation: { label: "Write file", icon: "pen", tone: "warning" },
    },
  ],
};

let t: TestHost;
beforeEach(async () => {
  t = await openTestHost([files]);
  await t.host.createAgent("ada");
  await t.host.setToolsEnabled("ada", { "files:read": true, "files:write": true });
});
afterEach(async () => t.close());

function textOf(outcome: {
  result: { content: Array<{ type: string; text?: string }> };
}): string | undefined {
  return outcome.result.content[0]?.text;
}

/** Resolves with the next permission.required event. */
function nextApproval(): Promise<HostEventMap["permission.required"]> {
  return new Promise((resolve) => {
    const off = t.host.on("permission.required", (event) => {
      off();
      resolve(event);
    });
  });
}

describe("beforeToolCall and afterToolCall hooks", () => {
  it("feeds a block's reason back as the tool's result and tells after-hooks it was blocked", async () => {
    const after: AfterToolCallContext[] = [];
    t.host.beforeToolCall(({ toolName, input }) =>
      toolName === "files:read" && String(input.path).startsWith("/etc")
        ? { block: true, reason: "path is outside the workspace" }
        : undefined,
    );
    t.host.afterToolCall((ctx) => {
      after.push(ctx);
    });
    const out = await t.host.callTool("ada", "files:read", { path: "/etc/passwd" });
    expect(out).toMatchObject({ blocked: true, errorCode: "AIRLOCK_TOOL_BLOCKED" });
    expect(out.result).toEqual({
      content: [{ type: "text", text: "path is outside the workspace" }],
      isError: true,
    });
    expect(after[0]).toMatchObject({
      toolName: "files:read",
      blocked: true,
      error: { code: "AIRLOCK_TOOL_BLOCKED", message: "path is outside the workspace" },
    });
    expect(after[0]?.result).toBeUndefined();
    expect(textOf(await t.host.callTool("ada", "files:read", { path: "notes.txt" }))).toBe("read notes.txt");
  });

  it("runs hooks in registration order, each rewrite feeding the next hook and the tool", async () => {
    const seen: string[] = [];
    t.host.beforeToolCall(({ input }) => {
      seen.push(String(input.path));
      return { input: { path: `ws/${String(input.path)}` } };
    });
    t.host.beforeToolCall(({ input }) => {
      seen.push(String(input.path));
      return { input: { path: `${String(input.path)}.txt` } };
    });
    let afterInput: unknown;
    t.host.afterToolCall(({ input }) => {
      afterInput = input;
    });
    const out = await t.host.callTool("ada", "files:read", { path: "a" });
    expect(seen).toEqual(["a", "ws/a"]);
    expect(textOf(out)).toBe("read ws/a.txt");
    expect(afterInput).toEqual({ path: "ws/a.txt" });
  });

  it("blocks with AIRLOCK_HOOK_FAILED when a before-hook throws, and stops unregistered hooks", async () => {
    const off = t.host.beforeToolCall(() => {
      throw new Error("policy engine unreachable");
    });
    const out = await t.host.callTool("ada", "files:read", { path: "a" });
    expect(out).toMatchObject({ blocked: true, errorCode: "AIRLOCK_HOOK_FAILED" });
    expect(textOf(out)).toContain("policy engine unreachable");
    off();
    expect((await t.host.callTool("ada", "files:read", { path: "a" })).errorCode).toBeUndefined();
  });

  it("logs a throwing after-hook to the audit and still returns the tool's result", async () => {
    t.host.afterToolCall(() => {
      throw new Error("metrics sink down");
    });
    const out = await t.host.callTool("ada", "files:read", { path: "a" });
    expect(out.errorCode).toBeUndefined();
    expect(textOf(out)).toBe("read a");
    const entries = await t.host.queryAudit({ agent: "ada", kind: "tool" });
    expect(entries.find((e) => e.action === "hook.after_failed")?.error).toContain("metrics sink down");
    expect(t.internalErrors.some((e) => e.what.includes("afterToolCall"))).toBe(true);
  });
});

describe("approvals", () => {
  it("runs a read-only tool without asking", async () => {
    let asked = false;
    t.host.on("permission.required", () => {
      asked = true;
    });
    expect(textOf(await t.host.callTool("ada", "files:read", { path: "a" }))).toBe("read a");
    expect(asked).toBe(false);
  });

  it("waits for an approval of a mutating tool, announced with its presentation, then runs it", async () => {
    const announced = nextApproval();
    const call = t.host.callTool("ada", "files:write", { path: "out.txt" });
    const event = await announced;
    expect(event).toMatchObject({
      agent: "ada",
      toolName: "files:write",
      input: { path: "out.txt" },
      presentation: { label: "Write file", icon: "pen", tone: "warning" },
    });
    const pending: PendingApproval[] = await t.host.listApprovals("ada");
    expect(pending.map((p) => p.id)).toEqual([event.approvalId]);
    await t.host.decideApproval(event.approvalId, { approve: true });
    expect(textOf(await call)).toBe("wrote out.txt");
    expect(await t.host.listApprovals()).toEqual([]);
  });

  it("returns a denial as the tool's result, with the operator's reason", async () => {
    const announced = nextApproval();
    const call = t.host.callTool("ada", "files:write", { path: "out.txt" });
    await t.host.decideApproval((await announced).approvalId, {
      approve: false,
      reason: "no writes on Fridays",
    });
    const out = await call;
    expect(out).toMatchObject({ errorCode: "AIRLOCK_APPROVAL_DENIED", blocked: false });
    expect(out.result.isError).toBe(true);
    expect(textOf(out)).toContain("no writes on Fridays");
  });

  it("asks for the approval on the input as rewritten by hooks", async () => {
    t.host.beforeToolCall(({ input }) => ({ input: { path: `safe/${String(input.path)}` } }));
    const announced = nextApproval();
    const call = t.host.callTool("ada", "files:write", { path: "x" });
    const event = await announced;
    expect(event.input).toEqual({ path: "safe/x" });
    await t.host.decideApproval(event.approvalId, { approve: true });
    expect(textOf(await call)).toBe("wrote safe/x");
  });

  it("skips the approval when the run auto-approves", async () => {
    const out = await t.host.callTool(
      "ada",
      "files:write",
      { path: "a" },
      { agent: "ada", autoApprove: true },
    );
    expect(textOf(out)).toBe("wrote a");
  });

  it("gives up the wait when the call's signal aborts", async () => {
    const controller = new AbortController();
    const announced = nextApproval();
    const call = t.host.callTool(
      "ada",
      "files:write",
      { path: "a" },
      { agent: "ada", signal: controller.signal },
    );
    await announced;
    controller.abort();
    expect((await call).errorCode).toBe("AIRLOCK_TOOL_CANCELLED");
    expect(await t.host.listApprovals()).toEqual([]);
  });
});

describe("closing the host", () => {
  it("denies a pending approval, then answers calls with AIRLOCK_HOST_CLOSED", async () => {
    const run = await t.host.startRun({ agent: "ada" });
    const announced = nextApproval();
    const call = run.call("files:write", { path: "a" });
    await announced;
    await t.host.close();
    expect((await call).errorCode).toBe("AIRLOCK_APPROVAL_DENIED");
    expect((await run.call("files:read", { path: "a" })).errorCode).toBe("AIRLOCK_HOST_CLOSED");
    const error = await t.host.startRun({ agent: "ada" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "AIRLOCK_HOST_CLOSED" });
  });
});

describe("host-wide auto-approval", () => {
  it("runs mutating tools without waiting when the operator set autoApprove", async () => {
    const other = await openTestHost([files], { autoApprove: true });
    try {
      await other.host.createAgent("bob");
      await other.host.setToolsEnabled("bob", { "files:write": true });
      expect(textOf(await other.host.callTool("bob", "files:write", { path: "z" }))).toBe("wrote z");
    } finally {
      await other.close();
    }
  });
});

describe("events", () => {
  it("emits started and completed with the tool's name and presentation", async () => {
    const events: Array<[string, unknown]> = [];
    t.host.on("tool.started", (e) => events.push(["started", e]));
    t.host.on("tool.completed", (e) => events.push(["completed", e]));
    t.host.on("tool.failed", (e) => events.push(["failed", e]));
    const out = await t.host.callTool("ada", "files__read", { path: "a" });
    const presentation = { label: "Read file", icon: "file", group: "fs" };
    expect(events).toEqual([
      [
        "started",
        { runId: expect.any(String), callId: out.callId, agent: "ada", toolName: "files:read", presentation },
      ],
      [
        "completed",
        {
          runId: expect.any(String),
          callId: out.callId,
          agent: "ada",
          toolName: "files:read",
          presentation,
          isError: false,
          durationMs: expect.any(Number),
        },
      ],
    ]);
  });

  it("emits failed, with presentation and blocked, for a refused call", async () => {
    t.host.beforeToolCall(() => ({ block: true, reason: "no" }));
    const failed: HostEventMap["tool.failed"][] = [];
    t.host.on("tool.failed", (e) => failed.push(e));
    await t.host.callTool("ada", "files:read", { path: "a" });
    expect(failed[0]).toMatchObject({
      toolName: "files:read",
      blocked: true,
      error: { code: "AIRLOCK_TOOL_BLOCKED" },
      presentation: { label: "Read file" },
    });
  });

  it("keeps serving when an event listener throws", async () => {
    t.host.on("tool.started", () => {
      throw new Error("ui went away");
    });
    expect(textOf(await t.host.callTool("ada", "files:read", { path: "a" }))).toBe("read a");
    expect(t.internalErrors.some((e) => e.what.includes("tool.started"))).toBe(true);
  });

  it("audits every call as a tool entry", async () => {
    const out = await t.host.callTool("ada", "files:read", { path: "a" });
    const [entry] = await t.host.queryAudit({ agent: "ada", kind: "tool", tool: "read" });
    expect(entry).toMatchObject({ plugin: "files", action: "call", allowed: true, success: true });
    expect(entry?.details).toMatchObject({ callId: out.callId });
  });
});
