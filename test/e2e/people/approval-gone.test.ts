// A decision for an approval whose call no longer waits, on one host (its embedded store): the
// call was cancelled (a caller's cancel and a call's wall timeout both abort its signal), or the
// operator decided twice. Refused with a code on the admin API and the CLI, each attempt audited
// (approval.decide with the code), and nothing runs.
import { afterAll, beforeAll, expect, test } from "vitest";
import { cli } from "../cli-support.ts";
import { type LoopFixture, startLoopHost } from "./support.ts";

let fx: LoopFixture;
beforeAll(async () => {
  fx = await startLoopHost();
  await fx.host.setPeoplePolicy("alpha", { approval: "operator" });
});
afterAll(async () => {
  await fx.close();
});

async function decide(id: string, approve: boolean) {
  const res = await fetch(`${fx.server.url}/api/approvals/${encodeURIComponent(id)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${fx.operatorToken}`, "content-type": "application/json" },
    body: JSON.stringify({ approve }),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

async function decideRows(id: string) {
  return (await fx.host.queryAudit({ kind: "admin", limit: 500 })).filter(
    (r) => r.action === "approval.decide" && r.details?.approvalId === id,
  );
}

/** How many calls of loop:write ran and succeeded (their tool rows). */
async function ranWrites() {
  return (await fx.host.queryAudit({ agent: "alpha", kind: "tool", limit: 500 })).filter(
    (r) => r.tool === "write" && r.action === "call" && r.success === true,
  ).length;
}

/** A call of loop:write waiting for the operator, and its approval's id. */
async function waiting(note: string, signal?: AbortSignal) {
  const asked = new Promise<string>((resolve) => {
    const off = fx.host.on("permission.required", (event) => {
      off();
      resolve(event.approvalId);
    });
  });
  const call = fx.host.callTool(
    "alpha",
    "loop:write",
    { note },
    { agent: "alpha", ...(signal ? { signal } : {}) },
  );
  return { call, id: await asked };
}

test("approving a call that was cancelled is refused AIRLOCK_APPROVAL_CALL_GONE (API and CLI), audited, and nothing runs", async () => {
  const controller = new AbortController();
  const { call, id } = await waiting("cancelled", controller.signal);
  controller.abort();
  expect((await call).errorCode).toBe("AIRLOCK_TOOL_CANCELLED");
  const before = await ranWrites();
  const answer = await decide(id, true);
  expect(answer.status).toBe(410);
  expect(answer.body.error?.code).toBe("AIRLOCK_APPROVAL_CALL_GONE");
  expect(answer.body.error?.message).toContain("nothing ran");
  const byCli = await cli("airlock", ["approvals", "approve", id, "--admin-url", fx.server.url], {
    env: { AIRLOCK_OPERATOR_TOKEN: fx.operatorToken },
  });
  expect(byCli.status).toBe(1);
  expect(byCli.stderr).toMatch(/^error: AIRLOCK_APPROVAL_CALL_GONE: .*nothing ran$/m);
  expect((await decideRows(id)).map((r) => r.error)).toEqual([
    "AIRLOCK_APPROVAL_CALL_GONE",
    "AIRLOCK_APPROVAL_CALL_GONE",
  ]);
  // nothing ran: no successful call of loop:write since the cancelled one
  expect(await ranWrites()).toBe(before);
});

test("a second decision is refused AIRLOCK_APPROVAL_ALREADY_DECIDED naming the first, and each is audited", async () => {
  const { call, id } = await waiting("twice");
  expect((await decide(id, false)).status).toBe(200);
  expect((await call).errorCode).toBe("AIRLOCK_APPROVAL_DENIED");
  const again = await decide(id, true);
  expect(again.status).toBe(409);
  expect(again.body.error).toMatchObject({ code: "AIRLOCK_APPROVAL_ALREADY_DECIDED" });
  expect(again.body.error?.message).toContain("already denied");
  expect((await decideRows(id)).map((r) => r.error).sort()).toEqual(
    ["AIRLOCK_APPROVAL_ALREADY_DECIDED", null].sort(),
  );
  expect((await decide("apr_never-issued", true)).body.error?.code).toBe("AIRLOCK_API_UNKNOWN_APPROVAL");
});
