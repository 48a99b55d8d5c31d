// The operator's view of a replica: /readyz (ready, then 503 while draining), /metrics
// (Prometheus text, operator token, counters by outcome), and close() draining: a call in
// flight finishes, a new connection is refused.
import { afterAll, beforeAll, expect, test } from "vitest";
import { startAdminServer } from "./server.ts";
import { createSurfaceFixture, type SurfaceFixture } from "./test-support.ts";

let f: SurfaceFixture;
beforeAll(async () => {
  f = await createSurfaceFixture();
});
afterAll(async () => {
  await f.close();
});

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

test("serves Prometheus metrics to an operator: calls by outcome, latency, refusals by code, approvals pending", async () => {
  const server = await startAdminServer(f.host, { mcp: false, log: () => undefined });
  try {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: auth(f.agentToken) })).status).toBe(403);
    await fetch(`${server.url}/metrics`, { headers: auth(f.operatorToken) }); // first scrape starts counting
    await f.host.callTool("alpha", "kit:echo", { text: "x" });
    await f.host.callTool("alpha", "kit:nothere", {});
    const res = await fetch(`${server.url}/metrics`, { headers: auth(f.operatorToken) });
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    const replica = `replica="${f.host.replica}"`;
    expect(text).toContain(`airlock_tool_calls_total{outcome="ok",${replica}} 1`);
    expect(text).toContain(`airlock_tool_refusals_total{code="AIRLOCK_TOOL_NOT_EXPOSED",${replica}} 1`);
    expect(text).toMatch(
      // the +Inf bucket: which finite bucket a call lands in depends on the machine's load
      /airlock_tool_call_duration_seconds_bucket\{le="\+Inf",replica="[^"]+",outcome="ok"\} 1/,
    );
    expect(text).toContain(`airlock_approvals_pending{${replica}} 0`);
    expect(text).toContain("airlock_sandbox_worker_restarts");
  } finally {
    await server.close();
  }
});

test("answers ready, then 503 draining while close() lets a call in flight finish and refuses new connections", async () => {
  const server = await startAdminServer(f.host, { mcp: false, log: () => undefined, drainMs: 5000 });
  expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({
    status: "ready",
    replica: f.host.replica,
  });
  // A call that waits for an approval is in flight when the drain starts.
  const call = fetch(`${server.url}/api/instances/alpha/calls`, {
    method: "POST",
    headers: { ...auth(f.operatorToken), "content-type": "application/json" },
    body: JSON.stringify({ tool: "kit:write", input: {} }),
  });
  let approvalId = "";
  for (let i = 0; i < 200 && approvalId === ""; i++) {
    approvalId = (await f.host.listApprovals("alpha"))[0]?.id ?? "";
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(approvalId).not.toBe("");
  const closing = server.close();
  await expect(fetch(`${server.url}/readyz`)).rejects.toThrow();
  await f.host.decideApproval(approvalId, { approve: true });
  const out = (await (await call).json()) as { errorCode?: string };
  expect(out.errorCode).toBeUndefined();
  await closing;
});
