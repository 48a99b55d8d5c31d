// Attacks on the 2026-07-28 operator round trip (policy: operator, a client that opens URLs), on
// the embedded host: the rounds are driven by hand, as an attacker holding the round state would.
// An answer to the approval page's elicitation is no approval; an answer smuggled in without a
// sealed state is ignored; a state replayed after its call ran opens a new approval and runs
// nothing; a denied approval stays denied on retry. The host stays healthy throughout.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type LoopFixture, startLoopHost } from "../e2e/people/support.ts";

let fx: LoopFixture;
let client: Client;
beforeAll(async () => {
  fx = await startLoopHost({ approvalWaitMs: 300 });
  await fx.host.setPeoplePolicy("alpha", { approval: "operator" });
  client = new Client(
    { name: "attacker", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {}, url: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(fx.server.mcpUrl("alpha")), {
      requestInit: { headers: { authorization: `Bearer ${fx.agentToken}` } },
    }),
  );
});
afterAll(async () => {
  await client.close();
  await fx.close();
});

type Answer = {
  resultType?: string;
  requestState?: string;
  inputRequests?: Record<string, { params: { mode?: string; url?: string } }>;
  isError?: boolean;
  content?: Array<{ text?: string }>;
  _meta?: Record<string, unknown>;
};
const KEY = "airlock.approval.operator";
const opened = { [KEY]: { action: "accept" } };
const args = { name: "loop__write", arguments: { note: "attack" } };
const call = (params: Record<string, unknown>) =>
  client.request({ method: "tools/call", params: params as never }, {
    allowInputRequired: true,
  } as never) as Promise<Answer>;
const idOf = (a: Answer) => (a.inputRequests?.[KEY]?.params.url ?? "").split("/approve/")[1] ?? "";

async function writes(): Promise<number> {
  const rows = await fx.host.queryAudit({ agent: "alpha", kind: "tool", limit: 500 });
  return rows.filter((r) => r.action === "approval" && r.allowed).length;
}

test("an answer smuggled in without a sealed state is ignored: the host opens an approval and asks", async () => {
  const first = await call({ ...args, inputResponses: opened });
  expect(first.resultType).toBe("input_required");
  expect(first.inputRequests?.[KEY]?.params.mode).toBe("url");
  expect(idOf(first)).toMatch(/^apr_/);
  expect((await fx.host.listApprovals("alpha")).map((a) => a.id)).toContain(idOf(first));
});

test("saying the page was opened approves nothing: the retry is asked again, the approval still pending", async () => {
  const before = await writes();
  const first = await call(args);
  const id = idOf(first);
  let state = first.requestState;
  for (let i = 0; i < 3; i++) {
    const again = await call({ ...args, requestState: state, inputResponses: opened });
    expect(again.resultType).toBe("input_required");
    expect(idOf(again)).toBe(id);
    state = again.requestState;
  }
  expect((await fx.host.listApprovals("alpha")).map((a) => a.id)).toContain(id);
  expect(await writes()).toBe(before);
});

test("a state replayed after its call ran opens a new approval and runs nothing more", async () => {
  const first = await call(args);
  const id = idOf(first);
  await fx.host.decideApproval(id, { approve: true });
  const before = await writes();
  const ran = await call({ ...args, requestState: first.requestState, inputResponses: opened });
  expect(ran.content?.[0]?.text).toBe("written: attack");
  expect(await writes()).toBe(before + 1);
  for (let i = 0; i < 2; i++) {
    const replay = await call({ ...args, requestState: first.requestState, inputResponses: opened });
    expect(replay.resultType).toBe("input_required");
    expect(idOf(replay)).not.toBe(id);
  }
  expect(await writes()).toBe(before + 1);
});

test("a denial is answered with its reason; the same state then opens a fresh approval, never a run", async () => {
  const first = await call(args);
  await fx.host.decideApproval(idOf(first), { approve: false, reason: "no attacks" });
  const denied = await call({ ...args, requestState: first.requestState, inputResponses: opened });
  expect(denied._meta?.["airlock/errorCode"]).toBe("AIRLOCK_APPROVAL_DENIED");
  expect(denied.content?.[0]?.text).toBe("The call was not approved: no attacks");
  // The decision was taken: the same state now opens a fresh approval rather than running.
  const again = await call({ ...args, requestState: first.requestState, inputResponses: opened });
  expect(again.resultType).toBe("input_required");
  expect((await fetch(`${fx.server.url}/healthz`)).status).toBe(200);
});
