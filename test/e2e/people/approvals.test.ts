// Approvals and ctx.elicit reaching the MCP client through the protocol, with each SDK client:
// v1 (2025-era) and v2 (2025-11-25) answer `elicitation/create` pushed on the call's stream;
// v2 pinned to 2026-07-28 gets an input_required result and retries with the answer (the SDK
// drives the rounds). A client without elicitation keeps the operator's path and its notice.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connect, KINDS, type LoopFixture, startLoopHost, text } from "./support.ts";

let fx: LoopFixture;
beforeAll(async () => {
  fx = await startLoopHost();
});
afterAll(async () => {
  await fx.close();
});

const approve = { action: "accept" as const, content: { decision: "approve" } };

/** The id of the next approval the host asks an operator for. */
function nextApprovalId(): Promise<string> {
  return new Promise<string>((resolve) => {
    const off = fx.host.on("permission.required", (event) => {
      off();
      resolve(event.approvalId);
    });
  });
}

async function approvalRows() {
  return (await fx.host.queryAudit({ agent: "alpha", kind: "tool", limit: 200 })).filter(
    (r) => r.action === "approval",
  );
}

describe.each(KINDS)("%s", (kind) => {
  const path = kind === "sdk v2, 2026-07-28" ? "input_required" : "elicitation";

  test("the person at the client approves a call (policy: client), and the audit says who and how", async () => {
    await fx.host.setPeoplePolicy("alpha", { approval: "client" });
    const c = await connect(kind, fx);
    c.answer = () => approve;
    const result = await c.call("loop__write", { note: "hi" });
    expect(text(result)).toBe("written: hi");
    expect(c.asked).toHaveLength(1);
    const [asked] = c.asked;
    expect(asked?.mode ?? "form").toBe("form");
    expect(asked?.message).toContain("Write a note (loop__write)");
    expect(asked?.message).toContain('{"note":"hi"}');
    expect(Object.keys(asked?.requestedSchema?.properties ?? {})).toEqual(["decision", "reason"]);
    const [row] = await approvalRows();
    expect(row).toMatchObject({
      allowed: true,
      tool: "write",
      details: { mode: "client", by: "client", path, approved: true },
    });
    await c.close();
  });

  test("a denial with a reason comes back as an isError result carrying the reason", async () => {
    await fx.host.setPeoplePolicy("alpha", { approval: "client" });
    const c = await connect(kind, fx);
    c.answer = () => ({ action: "accept", content: { decision: "deny", reason: "not on a Friday" } });
    const result = await c.call("loop__write", { note: "friday" });
    expect(result.isError).toBe(true);
    expect(result._meta?.["airlock/errorCode"]).toBe("AIRLOCK_APPROVAL_DENIED");
    expect(text(result)).toBe("The call was not approved: not on a Friday");
    const [row] = await approvalRows();
    expect(row).toMatchObject({
      allowed: false,
      error: "AIRLOCK_APPROVAL_DENIED",
      details: { by: "client", path, reason: "not on a Friday" },
    });
    await c.close();
  });

  test("a dismissed approval (cancel) does not run the call", async () => {
    await fx.host.setPeoplePolicy("alpha", { approval: "client" });
    const c = await connect(kind, fx);
    c.answer = () => ({ action: "cancel" });
    const result = await c.call("loop__write", {});
    expect(result.isError).toBe(true);
    expect(result._meta?.["airlock/errorCode"]).toBe("AIRLOCK_APPROVAL_DISMISSED");
    await c.close();
  });

  test("a client without elicitation waits for the operator and is told where to decide", async () => {
    await fx.host.setPeoplePolicy("alpha", { approval: "client" });
    const c = await connect(kind, fx, { elicitation: false });
    const pendingEvent = nextApprovalId();
    const notices: string[] = [];
    const call = c.call("loop__write", { note: "later" }, (m) => notices.push(m));
    const id = await pendingEvent;
    await fx.host.decideApproval(id, { approve: true });
    expect(text(await call)).toBe("written: later");
    expect(notices).toEqual([
      `waiting for an operator's approval of loop__write (approval ${id}): decide it in the host's console (/admin), on its approval page ${fx.server.url}/approve/${id} or with POST /api/approvals/${id}`,
    ]);
    await c.close();
  });

  test("policy auto runs the call unasked; a per-tool operator override keeps the operator's path", async () => {
    await fx.host.setPeoplePolicy("alpha", { approval: "auto" });
    // Without URL elicitation the call waits for the operator in its request, in every era
    // (with it, 2026-07-28 makes a round trip to the approval page: pages.test.ts).
    const c = await connect(kind, fx, { elicitation: { url: false } });
    expect(text(await c.call("loop__write", { note: "auto" }))).toBe("written: auto");
    expect(c.asked).toEqual([]);
    const [row] = await approvalRows();
    expect(row?.details).toMatchObject({ mode: "auto", by: "policy" });
    await fx.host.setPeoplePolicy("alpha", { tools: { "loop:write": "operator" } });
    const pendingEvent = nextApprovalId();
    const call = c.call("loop__write", { note: "op" });
    await fx.host.decideApproval(await pendingEvent, { approve: false, reason: "no" });
    expect(text(await call)).toBe("The call was not approved: no");
    await fx.host.setPeoplePolicy("alpha", { approval: "operator", tools: { "loop:write": null } });
    await c.close();
  });

  test("the destructive tools' mode: operator for them while the rest is auto, and auto for them alone", async () => {
    // loop:write says destructiveHint: true (it declares no grants, so its claim stands)
    await fx.host.setPeoplePolicy("alpha", { approval: "auto", destructive: "operator" });
    const c = await connect(kind, fx, { elicitation: { url: false } });
    const pendingEvent = nextApprovalId();
    const call = c.call("loop__write", { note: "wipe" });
    await fx.host.decideApproval(await pendingEvent, { approve: false, reason: "not today" });
    expect(text(await call)).toBe("The call was not approved: not today");
    await fx.host.setPeoplePolicy("alpha", { approval: "operator", destructive: "auto" });
    expect(text(await c.call("loop__write", { note: "unasked" }))).toBe("written: unasked");
    expect(c.asked).toEqual([]);
    const rows = await approvalRows();
    expect(rows[0]?.details).toMatchObject({ mode: "auto", by: "policy" }); // newest first
    expect(await fx.host.setPeoplePolicy("alpha", { destructive: null })).toMatchObject({
      approval: "operator",
      destructive: null,
    });
    await c.close();
  });

  test("ctx.elicit asks the person; the answer is validated, and the sensitive field is not audited", async () => {
    const c = await connect(kind, fx);
    c.answer = (params) => {
      expect(params.message).toBe("Who are you?");
      expect(params.requestedSchema?.properties.pin).toEqual({ type: "string", title: "PIN" });
      return { action: "accept", content: { name: "Ada", pin: "PIN-CANARY-4711" } };
    };
    expect(text(await c.call("loop__ask", {}))).toBe("hello Ada (pin given)");
    const rows = (await fx.host.queryAudit({ agent: "alpha", kind: "capability", limit: 50 })).filter(
      (r) => r.action === "elicit.ask",
    );
    expect(rows[0]).toMatchObject({
      success: true,
      details: { action: "accept", content: { name: "Ada", pin: "[sensitive: omitted]" } },
    });
    expect(JSON.stringify(await fx.host.queryAudit({ limit: 1000 }))).not.toContain("PIN-CANARY-4711");

    c.answer = () => ({ action: "decline" });
    expect(text(await c.call("loop__ask", {}))).toBe("elicit: decline");
    c.answer = () => ({ action: "cancel" });
    expect(text(await c.call("loop__ask", {}))).toBe("elicit: cancel");
    c.answer = () => ({ action: "accept", content: { name: 42 } });
    const bad = await c.call("loop__ask", {});
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/AIRLOCK_ELICIT_CONTENT_INVALID|does not match/);
    await c.close();
  });

  test("ctx.elicit answers unsupported at once when the client cannot elicit", async () => {
    const c = await connect(kind, fx, { elicitation: false });
    expect(text(await c.call("loop__ask", {}))).toBe("elicit: unsupported");
    await c.close();
  });
});
