// The 2026-07-28 operator round trip across replicas: two hosts sharing one PostgreSQL store
// (and plugins volume and master key). The round that opens the approval runs on one replica,
// the operator decides on the other, and the retry is served by whichever one it reaches,
// because the approval is a row of the store. The rounds are driven by hand (a v2 client with
// auto-fulfilment off), which also shows what an attacker holding a round state can do: an
// answer to the page's elicitation approves nothing, and a replayed state runs nothing twice.
// The approval page's forms and a console session are sealed with the shared master key, so
// each replica opens what the other sealed; revoking an operator token through one replica ends
// the console sessions it opened on both (each use checks the store).
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AirlockHost } from "../../../host/src/contracts/host.ts";
import { installFixture } from "../../../host/src/engine/pipeline/test-fixtures.ts";
import { createHost } from "../../../host/src/host.ts";
import { openStore } from "../../../host/src/state/store/index.ts";
import { dropSchemas, freshSchemaName } from "../../../host/src/state/store/postgres/test-schema.ts";
import { type AdminServer, startAdminServer } from "../../../host/src/surfaces/http/server.ts";
import { describePg, PG_URL } from "../../support/postgres.ts";
import { LOOP } from "./support.ts";

type Answer = {
  resultType?: string;
  requestState?: string;
  inputRequests?: Record<string, { method: string; params: { mode?: string; url?: string } }>;
  isError?: boolean;
  content?: Array<{ text?: string }>;
  _meta?: Record<string, unknown>;
};
const PAGE_KEY = "airlock.approval.operator";

describePg("operator approvals as a round trip, across replicas", () => {
  const schema = freshSchemaName();
  let dir: string;
  let hosts: AirlockHost[] = [];
  let servers: AdminServer[] = [];
  let clients: Client[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-operator-round-"));
    const storeConfig = { kind: "postgres" as const, url: PG_URL, schema };
    const store = await openStore(storeConfig);
    try {
      await installFixture(store, join(dir, "plugins"), LOOP);
    } finally {
      await store.close();
    }
    const options = {
      dataDir: dir,
      store: storeConfig,
      sandbox: { mode: "in-process" as const },
      masterKey: randomBytes(32).toString("base64"),
      onInternalError: () => undefined,
    };
    hosts = [await createHost(options), await createHost(options)];
    const [a] = hosts as [AirlockHost, AirlockHost];
    await a.createAgent("alpha");
    await a.setToolsEnabled("alpha", { "loop:write": true });
    await a.setPeoplePolicy("alpha", { approval: "operator" });
    const token = (await a.issueToken("agent", "alpha", "replicas")).token;
    servers = await Promise.all(
      hosts.map((host) =>
        startAdminServer(host, { port: 0, log: () => undefined, mcp: { approvalWaitMs: 500 } }),
      ),
    );
    clients = await Promise.all(
      servers.map(async (server) => {
        const client = new Client(
          { name: "rounds", version: "1.0.0" },
          {
            capabilities: { elicitation: { form: {}, url: {} } },
            versionNegotiation: { mode: { pin: "2026-07-28" } },
            inputRequired: { autoFulfill: false },
          },
        );
        await client.connect(
          new StreamableHTTPClientTransport(new URL(server.mcpUrl("alpha")), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        return client;
      }),
    );
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    for (const server of servers) await server.close();
    for (const host of hosts) await host.close();
    await dropSchemas(PG_URL, [schema]);
    await rm(dir, { recursive: true, force: true });
  });

  const call = (replica: 0 | 1, params: Record<string, unknown>) =>
    (clients[replica] as Client).request({ method: "tools/call", params: params as never }, {
      allowInputRequired: true,
    } as never) as Promise<Answer>;
  const pageUrl = (answer: Answer) => answer.inputRequests?.[PAGE_KEY]?.params.url ?? "";

  it("opens on one replica, is decided on the other, and the retry runs the call once", async () => {
    const [a, b] = hosts as [AirlockHost, AirlockHost];
    const args = { name: "loop__write", arguments: { note: "across" } };
    const first = await call(0, args);
    expect(first.resultType).toBe("input_required");
    expect(Object.keys(first.inputRequests ?? {})).toEqual([PAGE_KEY]);
    expect(first.inputRequests?.[PAGE_KEY]?.params.mode).toBe("url");
    expect(pageUrl(first)).toMatch(new RegExp(`^${servers[0]?.url}/approve/apr_`));
    const id = pageUrl(first).split("/approve/")[1] as string;
    // Listed, with its input, on the other replica too.
    expect((await b.listApprovals("alpha")).map((p) => [p.id, p.input])).toEqual([[id, { note: "across" }]]);

    // The client says it opened the page: that is no approval; the retry is asked again.
    const opened = { [PAGE_KEY]: { action: "accept" } };
    const pending = await call(1, { ...args, requestState: first.requestState, inputResponses: opened });
    expect(pending.resultType).toBe("input_required");
    expect(pageUrl(pending).endsWith(`/approve/${id}`)).toBe(true);

    await b.decideApproval(id, { approve: true });
    const done = await call(0, { ...args, requestState: pending.requestState, inputResponses: opened });
    expect(done.content?.[0]?.text).toBe("written: across");
    expect(await a.listApprovals("alpha")).toEqual([]);

    // Replaying that state (through either replica) finds the approval used: a new one is asked for.
    const replay = await call(1, { ...args, requestState: pending.requestState, inputResponses: opened });
    expect(replay.resultType).toBe("input_required");
    const second = pageUrl(replay).split("/approve/")[1] as string;
    expect(second).toMatch(/^apr_/);
    expect(second).not.toBe(id);
    const runs = (await a.queryAudit({ agent: "alpha", kind: "tool", limit: 100 })).filter(
      (r) => r.action === "approval" && r.allowed,
    );
    expect(runs.map((r) => r.details?.approvalId)).toEqual([id]);
    await a.decideApproval(second, { approve: false, reason: "once is enough" });
    const refused = await call(0, { ...args, requestState: replay.requestState, inputResponses: opened });
    expect(refused._meta?.["airlock/errorCode"]).toBe("AIRLOCK_APPROVAL_DENIED");
    expect(refused.content?.[0]?.text).toBe("The call was not approved: once is enough");
    for (const server of servers) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("a page's forms and a console session work across replicas, and revoking the operator token on one ends the session on both", async () => {
    const [a, b] = hosts as [AirlockHost, AirlockHost];
    const [s0, s1] = servers as [AdminServer, AdminServer];
    const post = (url: string, fields: Record<string, string>) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });
    const tokenOf = (html: string) => /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const operator = await a.issueToken("operator", undefined, "replicas operator");

    // The approval page: the GET on one replica, the sign-in on the other, the decision on the first.
    const first = await call(0, { name: "loop__write", arguments: { note: "paged" } });
    const id = pageUrl(first).split("/approve/")[1] as string;
    const signIn = tokenOf(await (await fetch(`${s1.url}/approve/${id}`)).text());
    const signedIn = await post(`${s0.url}/approve/${id}`, {
      form_token: signIn,
      operator_token: operator.token,
    });
    const page = await signedIn.text();
    expect(page).toContain("paged");
    const decided = await post(`${s1.url}/approve/${id}`, { form_token: tokenOf(page), decision: "deny" });
    expect(decided.status).toBe(200);
    expect(await a.listApprovals("alpha")).toEqual([]);

    // The console: signed in through one replica, used through both, ended on both by one revoke.
    const session = await fetch(`${s0.url}/admin/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: operator.token }),
    });
    const cookie = (session.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    for (const server of servers) {
      expect((await fetch(`${server.url}/api/instances`, { headers: { cookie } })).status).toBe(200);
    }
    await b.revokeToken(operator.id);
    for (const server of [s0, s1]) {
      const res = await fetch(`${server.url}/api/instances`, { headers: { cookie } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        "AIRLOCK_CONSOLE_SESSION_EXPIRED",
      );
    }
    const refusals = (await a.queryAudit({ kind: "admin", limit: 100 })).filter(
      (r) => r.action === "console.session",
    );
    expect(refusals[0]).toMatchObject({ error: "AIRLOCK_CONSOLE_SESSION_EXPIRED" });
    for (const server of servers) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
