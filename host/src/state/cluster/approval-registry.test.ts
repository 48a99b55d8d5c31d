import { hasCode } from "@airlock/sdk";
import { describe, expect, it, vi } from "vitest";
import { createApprovalRegistry, OPEN_APPROVAL_TTL_MS } from "./approval-registry.ts";

const fields = { runId: "r", agent: "a", toolName: "ns:write", input: { x: 1 } };

describe("approval registry", () => {
  it("lists a pending approval until it is decided, then resolves with the decision", async () => {
    const approvals = createApprovalRegistry();
    let id = "";
    const decision = approvals.request(fields, undefined, (a) => {
      id = a.id;
    });
    expect((await approvals.list("a")).map((a) => a.id)).toEqual([id]);
    expect(await approvals.list("other")).toEqual([]);
    await approvals.decide(id, { approve: false, reason: "not today" });
    expect(await decision).toEqual({ approved: false, reason: "not today" });
    expect(await approvals.list()).toEqual([]);
  });

  it("refuses to decide an unknown approval, and an already decided one naming the decision that stands", async () => {
    const approvals = createApprovalRegistry();
    let id = "";
    const decision = approvals.request(fields, undefined, (a) => {
      id = a.id;
    });
    await approvals.decide(id, { approve: true });
    await expect(decision).resolves.toEqual({ approved: true });
    await expect(approvals.decide(id, { approve: false })).rejects.toMatchObject({
      code: "AIRLOCK_APPROVAL_ALREADY_DECIDED",
      status: 409,
      message: expect.stringContaining("already approved"),
    });
    await expect(approvals.decide("apr_unknown", { approve: true })).rejects.toMatchObject({
      code: "AIRLOCK_APPROVAL_NOT_FOUND",
    });
  });

  it("refuses AIRLOCK_APPROVAL_CALL_GONE to approve a call that was cancelled or timed out, or whose host closed", async () => {
    const approvals = createApprovalRegistry();
    const controller = new AbortController();
    let cancelledId = "";
    const cancelled = approvals.request(fields, controller.signal, (a) => {
      cancelledId = a.id;
    });
    controller.abort(); // a caller's cancel and a call's wall timeout both abort its signal
    expect(await cancelled).toEqual({ approved: false, cancelled: true });
    await expect(approvals.decide(cancelledId, { approve: true })).rejects.toMatchObject({
      code: "AIRLOCK_APPROVAL_CALL_GONE",
      status: 410,
      message: expect.stringContaining("cancelled or timed out"),
    });
    let closedId = "";
    const closed = approvals.request(fields, undefined, (a) => {
      closedId = a.id;
    });
    await approvals.denyAll("the host is closing");
    expect(await closed).toEqual({ approved: false, reason: "the host is closing" });
    await expect(approvals.decide(closedId, { approve: true })).rejects.toMatchObject({
      code: "AIRLOCK_APPROVAL_CALL_GONE",
    });
  });

  it("cancels a wait when the call's signal aborts", async () => {
    const approvals = createApprovalRegistry();
    const controller = new AbortController();
    const decision = approvals.request(fields, controller.signal, () => controller.abort());
    expect(await decision).toEqual({ approved: false, cancelled: true });
    expect(await approvals.list()).toEqual([]);
  });

  it("denies everything pending when the host closes", async () => {
    const approvals = createApprovalRegistry();
    const a = approvals.request(fields, undefined, () => undefined);
    const b = approvals.request(fields, undefined, () => undefined);
    await approvals.denyAll("shutting down");
    expect(await a).toEqual({ approved: false, reason: "shutting down" });
    expect(await b).toEqual({ approved: false, reason: "shutting down" });
  });

  it("an opened approval is listed and decided like any, and its decision is taken once", async () => {
    const approvals = createApprovalRegistry();
    const seen: string[] = [];
    const opened = await approvals.open(fields, (a) => seen.push(a.id));
    expect(seen).toEqual([opened.id]);
    expect((await approvals.list("a")).map((a) => a.id)).toEqual([opened.id]);
    expect((await approvals.take(opened.id))?.decision).toBeNull(); // pending: it stays
    await approvals.decide(opened.id, { approve: false, reason: "no" });
    expect(await approvals.list()).toEqual([]);
    expect((await approvals.take(opened.id))?.decision).toEqual({ approved: false, reason: "no" });
    expect(await approvals.take(opened.id)).toBeNull();
    const again = await approvals.decide(opened.id, { approve: true }).catch((error: unknown) => error);
    expect(hasCode(again, "AIRLOCK_APPROVAL_ALREADY_DECIDED")).toBe(true);
  });

  it("an opened approval nobody decides expires", async () => {
    const approvals = createApprovalRegistry();
    const opened = await approvals.open(fields, () => undefined);
    const now = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(now + OPEN_APPROVAL_TTL_MS + 1000);
    try {
      expect(await approvals.list()).toEqual([]);
      expect(await approvals.take(opened.id)).toBeNull();
      await expect(approvals.decide(opened.id, { approve: true })).rejects.toMatchObject({
        code: "AIRLOCK_APPROVAL_CALL_GONE",
      });
    } finally {
      vi.restoreAllMocks();
    }
  });
});
