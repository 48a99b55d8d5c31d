// Attacks on the 2026-07-28 operator round trip (policy: operator, a client that opens URLs), on
// the embedded host: the rounds are driven by hand, as an attacker holding the round state would.
// An answer to the approval page's elicitation is no approval; an answer smuggled in without a
// sealed state is ignored; a state replayed after its call ran opens a new approval and runs
// nothing; a denied approval stays denied on retry. After each attack: its exact outcome (the
// code of a refusal; no code at all when the host ignores the answer and asks again), the host
// answering /healthz, and the canary planted in the answers in no answer, audit row or host log.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type LoopFixture, startLoopHost } from "../e2e/people/support.ts";

const CANARY = "OPERATOR-ROUND-CANARY-71c4";

let fx: LoopFixture;
let client: Client;
/** Every answer the attacker got back, as JSON. */
const outputs: string[] = [];
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
// "the page was opened", with a field the host never asked for carrying the canary
const opened = { [KEY]: { action: "accept", content: { approved: true, note: CANARY } } };
const args = { name: "loop__write", arguments: { note: "attack" } };
async function call(params: Record<string, unknown>): Promise<Answer> {
  const answer = (await client.request({ method: "tools/call", params: params as never }, {
    allowInputRequired: true,
  } as never)) as Answer;
  outputs.push(JSON.stringify(answer));
  return answer;
}

/** The host ignored the answer: a new round sending the client to the approval page, no error code. */
function askedAgain(answer: Answer): void {
  expect(answer.resultType).toBe("input_required");
  expect(answer.isError).toBeUndefined();
  expect(answer._meta?.["airlock/errorCode"]).toBeUndefined();
  expect(Object.keys(answer.inputRequests ?? {})).toEqual([KEY]);
  expect(answer.inputRequests?.[KEY]?.params.mode).toBe("url");
}

/** The host still answers, and the canary is in no answer, audit row or host log. */
async function healthyAndClean(): Promise<void> {
  expect((await fetch(`${fx.server.url}/healthz`)).status).toBe(200);
  const audit = JSON.stringify(await fx.host.queryAudit({ limit: 1000 }));
  expect([audit, ...outputs, ...fx.logs].join("\n")).not.toContain(CANARY);
}

const idOf = (a: Answer) => (a.inputRequests?.[KEY]?.params.url ?? "").split("/approve/")[1] ?? "";

async function writes(): Promise<number> {
  const rows = await fx.host.queryAudit({ agent: "alpha", kind: "tool", limit: 500 });
  return rows.filter((r) => r.action === "approval" && r.allowed).length;
}

test("an answer smuggled in without a sealed state is ignored: the host opens an approval and asks", async () => {
  const before = await writes();
  const first = await call({ ...args, inputResponses: opened });
  askedAgain(first);
  expect(idOf(first)).toMatch(/^apr_/);
  expect((await fx.host.listApprovals("alpha")).map((a) => a.id)).toContain(idOf(first));
  expect(await writes()).toBe(before);
  await healthyAndClean();
});

test("saying the page was opened approves nothing: the retry is asked again, the approval still pending", async () => {
  const before = await writes();
  const first = await call(args);
  const id = idOf(first);
  let state = first.requestState;
  for (let i = 0; i < 3; i++) {
    const again = await call({ ...args, requestState: state, inputResponses: opened });
    askedAgain(again);
    expect(idOf(again)).toBe(id);
    state = again.requestState;
    await healthyAndClean();
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
    askedAgain(replay);
    expect(idOf(replay)).not.toBe(id);
    await healthyAndClean();
  }
  expect(await writes()).toBe(before + 1);
});

test("a denial is answered with its reason; the same state then opens a fresh approval, never a run", async () => {
  const before = await writes();
  const first = await call(args);
  await fx.host.decideApproval(idOf(first), { approve: false, reason: "no attacks" });
  const denied = await call({ ...args, requestState: first.requestState, inputResponses: opened });
  expect(denied._meta?.["airlock/errorCode"]).toBe("AIRLOCK_APPROVAL_DENIED");
  expect(denied.content?.[0]?.text).toBe("The call was not approved: no attacks");
  // The decision was taken: the same state now opens a fresh approval rather than running.
  await healthyAndClean();
  const again = await call({ ...args, requestState: first.requestState, inputResponses: opened });
  askedAgain(again);
  expect(await writes()).toBe(before);
  await healthyAndClean();
});
