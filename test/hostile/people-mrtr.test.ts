// Attacks on the 2026-07-28 round trip: a requestState the host did not seal, one sealed for
// another call (tool or input), and answers to questions the host never asked. None may run
// the tool or approve it; the host stays healthy.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type LoopFixture, startLoopHost } from "../e2e/people/support.ts";

let fx: LoopFixture;
let client: Client;
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
const call = (params: Record<string, unknown>) =>
  client.request({ method: "tools/call", params: params as never }, {
    allowInputRequired: true,
  } as never) as Promise<Answer>;
const approveAnswer = { action: "accept", content: { decision: "approve" } };

test("answers without a sealed state approve nothing: the host asks", async () => {
  const first = await call({
    name: "loop__write",
    arguments: { note: "x" },
    inputResponses: { "airlock.approval": approveAnswer },
  });
  expect(first.resultType).toBe("input_required");
  expect(Object.keys(first.inputRequests ?? {})).toEqual(["airlock.approval"]);
});

test("a forged requestState is refused as invalid params", async () => {
  await expect(
    call({
      name: "loop__write",
      arguments: { note: "x" },
      requestState: "forged",
      inputResponses: { "airlock.approval": approveAnswer },
    }),
  ).rejects.toMatchObject({ code: -32602 });
  expect((await fetch(`${fx.server.url}/healthz`)).status).toBe(200);
});

test("a state sealed for one input does not approve another", async () => {
  const first = await call({ name: "loop__write", arguments: { note: "harmless" } });
  expect(first.resultType).toBe("input_required");
  const replay = await call({
    name: "loop__write",
    arguments: { note: "something else" },
    requestState: first.requestState,
    inputResponses: { "airlock.approval": approveAnswer },
  });
  expect(replay.isError).toBe(true);
  expect(replay._meta?.["airlock/errorCode"]).toBe("AIRLOCK_MRTR_STATE_INVALID");
  const honest = await call({
    name: "loop__write",
    arguments: { note: "harmless" },
    requestState: first.requestState,
    inputResponses: { "airlock.approval": approveAnswer },
  });
  expect(honest.content?.[0]?.text).toBe("written: harmless");
});

test("a retry may answer only what the last round asked", async () => {
  await fx.host.setPeoplePolicy("alpha", { approval: "auto" });
  const first = await call({ name: "loop__ask", arguments: {} });
  expect(Object.keys(first.inputRequests ?? {})).toEqual(["airlock.elicit.0"]);
  const smuggled = await call({
    name: "loop__ask",
    arguments: {},
    requestState: first.requestState,
    inputResponses: { "airlock.elicit.1": { action: "accept", content: { name: "x" } } },
  });
  // The unasked answer is ignored: the question that was asked is asked again.
  expect(smuggled.resultType).toBe("input_required");
  expect(Object.keys(smuggled.inputRequests ?? {})).toEqual(["airlock.elicit.0"]);
  const answered = await call({
    name: "loop__ask",
    arguments: {},
    requestState: first.requestState,
    inputResponses: { "airlock.elicit.0": { action: "decline" } },
  });
  expect(answered.content?.[0]?.text).toBe("elicit: decline");
});
