// Attacks on the 2026-07-28 round trip: a requestState the host did not seal, one sealed for
// another call (tool or input), and answers to questions the host never asked. None may run
// the tool or approve it. After each attack: its exact outcome (the code of a refusal; no code
// at all when the host ignores what it did not ask and asks again), the host answering
// /healthz, and the canary the attacker planted in no answer, audit row or host log.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type LoopFixture, startLoopHost } from "../e2e/people/support.ts";

const CANARY = "MRTR-CANARY-0b6d2a";

let fx: LoopFixture;
let client: Client;
/** Every answer or error the attacker got back, as JSON. */
const outputs: string[] = [];

beforeAll(async () => {
  fx = await startLoopHost();
  await fx.host.setPeoplePolicy("alpha", { approval: "client" });
  client = new Client(
    { name: "attacker", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
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
  inputRequests?: Record<string, unknown>;
  isError?: boolean;
  content?: Array<{ text?: string }>;
  _meta?: Record<string, unknown>;
};
async function call(params: Record<string, unknown>): Promise<Answer> {
  try {
    const answer = (await client.request({ method: "tools/call", params: params as never }, {
      allowInputRequired: true,
    } as never)) as Answer;
    outputs.push(JSON.stringify(answer));
    return answer;
  } catch (error) {
    outputs.push(JSON.stringify({ error, message: (error as Error).message }));
    throw error;
  }
}
const approveAnswer = { action: "accept", content: { decision: "approve", note: CANARY } };

/** The host ignored what it did not ask for: a new round, no error code. */
function askedAgain(answer: Answer, keys: string[]): void {
  expect(answer.resultType).toBe("input_required");
  expect(answer.isError).toBeUndefined();
  expect(answer._meta?.["airlock/errorCode"]).toBeUndefined();
  expect(Object.keys(answer.inputRequests ?? {})).toEqual(keys);
}

/** The host still answers, and the canary is in no answer, audit row or host log. */
async function healthyAndClean(): Promise<void> {
  expect((await fetch(`${fx.server.url}/healthz`)).status).toBe(200);
  const audit = JSON.stringify(await fx.host.queryAudit({ limit: 1000 }));
  expect([audit, ...outputs, ...fx.logs].join("\n")).not.toContain(CANARY);
}

async function writes(): Promise<number> {
  const rows = await fx.host.queryAudit({ agent: "alpha", kind: "tool", limit: 500 });
  return rows.filter((r) => r.tool === "write" && r.action === "call" && r.success).length;
}

test("answers without a sealed state approve nothing: the host asks", async () => {
  const first = await call({
    name: "loop__write",
    arguments: { note: "x" },
    inputResponses: { "airlock.approval": approveAnswer },
  });
  askedAgain(first, ["airlock.approval"]);
  expect(await writes()).toBe(0);
  await healthyAndClean();
});

test("a forged requestState is refused as invalid params, naming nothing it carried", async () => {
  await expect(
    call({
      name: "loop__write",
      arguments: { note: "x" },
      requestState: `forged-${CANARY}`,
      inputResponses: { "airlock.approval": approveAnswer },
    }),
  ).rejects.toMatchObject({ code: -32602, data: { reason: "invalid_request_state" } });
  expect(await writes()).toBe(0);
  await healthyAndClean();
});

test("a state sealed for one input does not approve another", async () => {
  const first = await call({ name: "loop__write", arguments: { note: "harmless" } });
  expect(first.resultType).toBe("input_required");
  const replay = await call({
    name: "loop__write",
    arguments: { note: CANARY },
    requestState: first.requestState,
    inputResponses: { "airlock.approval": approveAnswer },
  });
  expect(replay.isError).toBe(true);
  expect(replay._meta?.["airlock/errorCode"]).toBe("AIRLOCK_MRTR_STATE_INVALID");
  expect(await writes()).toBe(0);
  await healthyAndClean();
  const honest = await call({
    name: "loop__write",
    arguments: { note: "harmless" },
    requestState: first.requestState,
    inputResponses: { "airlock.approval": { action: "accept", content: { decision: "approve" } } },
  });
  expect(honest.content?.[0]?.text).toBe("written: harmless");
  expect(await writes()).toBe(1);
  await healthyAndClean();
});

test("a retry may answer only what the last round asked", async () => {
  await fx.host.setPeoplePolicy("alpha", { approval: "auto" });
  const first = await call({ name: "loop__ask", arguments: {} });
  askedAgain(first, ["airlock.elicit.0"]);
  const smuggled = await call({
    name: "loop__ask",
    arguments: {},
    requestState: first.requestState,
    inputResponses: { "airlock.elicit.1": { action: "accept", content: { name: CANARY } } },
  });
  // The unasked answer is ignored: the question that was asked is asked again.
  askedAgain(smuggled, ["airlock.elicit.0"]);
  await healthyAndClean();
  const answered = await call({
    name: "loop__ask",
    arguments: {},
    requestState: first.requestState,
    inputResponses: { "airlock.elicit.0": { action: "decline" } },
  });
  expect(answered.content?.[0]?.text).toBe("elicit: decline");
  await healthyAndClean();
});
