// Two replicas of one PostgreSQL store (separate data directories, one master key, each with its
// own admin HTTP server), and what operators do to both at once:
// - two operators deciding the same approval on the two replicas at the same instant: exactly
//   one decision wins (the call's outcome is that one), both replicas see it (nothing pending),
//   the loser is refused AIRLOCK_APPROVAL_ALREADY_DECIDED naming the decision that stands, and
//   each operator's attempt is one audit row (approval.decide, the loser's with the code);
// - an approval whose call no longer waits (cancelled, its replica closed, its replica dead while
//   its heartbeat is still fresh) is refused AIRLOCK_APPROVAL_CALL_GONE on the admin API, the
//   CLI and the approval page, audited, and nothing runs;
// - uninstall, rollback and a knowledge-level change on one replica are seen by the other
//   replica's very next call.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PluginManifest } from "@airlock/sdk/manifest";
import { samplePluginFiles, sha512Integrity, writePluginTarball } from "@airlock/sdk/package";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { openStore, type Store } from "../../host/src/state/store/index.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { describePg, PG_URL } from "../support/postgres.ts";
import { cli } from "./cli-support.ts";

/** A plugin whose `echo` is not read-only (it needs an approval) and answers its version and level. */
function plugin(namespace: string, version: string): Uint8Array {
  const files = samplePluginFiles({
    namespace,
    version,
    patch: (m: PluginManifest) => {
      m.knowledge = "manage";
      const tool = m.tools[0];
      if (tool !== undefined) tool.annotations = {};
    },
  });
  const bundle = `globalThis.__airlockPlugin = { namespace: ${JSON.stringify(namespace)}, version: ${JSON.stringify(version)}, tools: { echo: (input, ctx) => ({ content: [{ type: "text", text: ${JSON.stringify(version)} + " " + (ctx.knowledge ? ctx.knowledge.level : "none") }] }) } };\n`;
  const manifest = JSON.parse(files.manifest) as PluginManifest;
  const bytes = new TextEncoder().encode(bundle);
  manifest.bundle = { file: "index.js", integrity: sha512Integrity(bytes), size: bytes.length };
  return writePluginTarball({ packageJson: files.packageJson, manifest: JSON.stringify(manifest), bundle });
}

const until = async (check: () => boolean | Promise<boolean>, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

const textOf = (outcome: { result: { content: unknown } }) =>
  ((outcome.result.content as Array<{ text?: string }>)[0]?.text ?? "").trim();

describePg("two replicas raced by operators", () => {
  const schema = freshSchemaName();
  const dirs: string[] = [];
  const masterKey = randomBytes(32).toString("base64");
  const internal: string[] = [];
  let a: AirlockHost;
  let b: AirlockHost;
  let servers: AdminServer[] = [];
  let operator: string;
  let raw: Store;

  const replica = async (id: string) => {
    const dir = await mkdtemp(join(tmpdir(), `airlock-races-${id}-`));
    dirs.push(dir);
    return createHost({
      dataDir: dir,
      store: { kind: "postgres", url: PG_URL, schema },
      sandbox: { mode: "in-process" },
      masterKey,
      replica: { id, heartbeatMs: 200, staleMs: 2000 },
      onInternalError: (what, error) => void internal.push(`${what}: ${String(error)}`),
    });
  };

  /** POSTs a decision to one replica's admin API: its status and code. */
  const decideOver = async (server: AdminServer, id: string, body: { approve: boolean; reason?: string }) => {
    const res = await fetch(`${server.url}/api/approvals/${encodeURIComponent(id)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${operator}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { error?: { code: string; message: string } };
    return { status: res.status, code: json.error?.code ?? null, message: json.error?.message ?? "" };
  };

  const decideRows = async (id: string) =>
    (await raw.queryAudit({ kind: "admin", limit: 1000 })).filter(
      (r) => r.action === "approval.decide" && r.details?.approvalId === id,
    );

  /** Starts a call on `host` and answers it with its approval's id once listed. */
  const waitingCall = async (host: AirlockHost, text: string, signal?: AbortSignal) => {
    const call = host.callTool(
      "ada",
      "race:echo",
      { text },
      signal === undefined ? { agent: "ada" } : { agent: "ada", signal },
    );
    let id = "";
    await until(async () => {
      const found = (await b.listApprovals("ada")).find((x) => (x.input as { text?: string }).text === text);
      id = found?.id ?? "";
      return id !== "";
    }, `the approval of "${text}" listed`);
    return { call, id };
  };

  /** Opens an approval's page on one replica: `decide` posts the page's own form, signed in. */
  const approvalPage = async (server: AdminServer, id: string) => {
    const path = `${server.url}/approve/${encodeURIComponent(id)}`;
    const post = (fields: Record<string, string>) =>
      fetch(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
        body: new URLSearchParams(fields).toString(),
      });
    const tokenIn = (html: string) => /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const first = tokenIn(await (await fetch(path)).text());
    const signedIn = tokenIn(await (await post({ form_token: first, operator_token: operator })).text());
    return {
      decide: (decision: "approve" | "deny") =>
        post({ form_token: signedIn, operator_token: operator, decision }),
    };
  };

  beforeAll(async () => {
    a = await replica("a");
    b = await replica("b");
    raw = await openStore({ kind: "postgres", url: PG_URL, schema }); // the hosts expose no store
    await a.plugins.installTarball(plugin("race", "1.0.0"), "/tmp/race-1.tgz", { allowUnsigned: true });
    await a.plugins.installTarball(plugin("race", "2.0.0"), "/tmp/race-2.tgz", { allowUnsigned: true });
    await a.createAgent("ada");
    await a.setToolsEnabled("ada", { "race:echo": true });
    operator = (await a.issueToken("operator", undefined, "races")).token;
    servers = await Promise.all(
      [a, b].map((host) => startAdminServer(host, { port: 0, disableHostCheck: true, log: () => undefined })),
    );
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await a?.close();
    await b?.close();
    await raw?.close();
    await dropSchemas(PG_URL, [schema]);
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("two operators deciding one approval on two replicas at the same instant: one wins, both see it, one audit row each", async () => {
    const [onA, onB] = servers as [AdminServer, AdminServer];
    for (let round = 0; round < 8; round++) {
      // the call waits on a or on b; the approver goes through one replica, the denier the other
      const { call, id } = await waitingCall(round % 2 === 0 ? a : b, `race ${round}`);
      const [approver, denier] = round % 4 < 2 ? [onA, onB] : [onB, onA];
      const answers = await Promise.all([
        decideOver(approver, id, { approve: true }),
        decideOver(denier, id, { approve: false, reason: `denied in round ${round}` }),
      ]);
      const statuses = answers.map((x) => x.status).sort();
      expect({ round, statuses }).toEqual({ round, statuses: [200, 409] });
      const approved = answers[0]?.status === 200;
      const loser = answers.find((x) => x.status === 409);
      expect(loser?.code).toBe("AIRLOCK_APPROVAL_ALREADY_DECIDED");
      expect(loser?.message).toContain(approved ? "already approved" : "already denied");
      // the call's outcome is the winner's decision
      const outcome = await call;
      if (approved) expect({ round, code: outcome.errorCode }).toEqual({ round, code: undefined });
      else {
        expect(outcome.errorCode).toBe("AIRLOCK_APPROVAL_DENIED");
        expect(JSON.stringify(outcome.result.content)).toContain(`denied in round ${round}`);
      }
      // both replicas see it decided
      expect(await a.listApprovals("ada")).toEqual([]);
      expect(await b.listApprovals("ada")).toEqual([]);
      // one audit row per operator's attempt: the winner's without error, the loser's with the code
      const rows = await decideRows(id);
      expect(rows.map((r) => r.error).sort()).toEqual(["AIRLOCK_APPROVAL_ALREADY_DECIDED", null].sort());
      expect(rows.find((r) => r.error === null)?.details?.approve).toBe(approved);
    }
  });

  it("refuses AIRLOCK_APPROVAL_CALL_GONE, audited, to approve a call cancelled on the other replica", async () => {
    const controller = new AbortController();
    const { call, id } = await waitingCall(a, "cancelled", controller.signal);
    controller.abort();
    expect((await call).errorCode).toBe("AIRLOCK_TOOL_CANCELLED");
    const answer = await decideOver(servers[1] as AdminServer, id, { approve: true });
    expect(answer).toMatchObject({ status: 410, code: "AIRLOCK_APPROVAL_CALL_GONE" });
    expect(answer.message).toContain("cancelled or timed out");
    expect((await decideRows(id)).map((r) => r.error)).toEqual(["AIRLOCK_APPROVAL_CALL_GONE"]);
  });

  it("refuses AIRLOCK_APPROVAL_CALL_GONE on the CLI and the approval page for a call whose replica closed", async () => {
    const c = await replica("c");
    const { call, id } = await waitingCall(c, "replica closes");
    await c.close(); // a graceful stop denies what its calls waited for
    expect((await call).errorCode).toBe("AIRLOCK_APPROVAL_DENIED");
    const byCli = await cli(
      "airlock",
      ["approvals", "approve", id, "--admin-url", (servers[1] as AdminServer).url],
      {
        env: { AIRLOCK_OPERATOR_TOKEN: operator },
      },
    );
    expect(byCli.status).toBe(1);
    expect(byCli.stderr).toContain("AIRLOCK_APPROVAL_CALL_GONE");
    // its approval page no longer offers it
    const page = await fetch(`${(servers[0] as AdminServer).url}/approve/${encodeURIComponent(id)}`);
    expect(page.status).toBe(404);
    expect(page.headers.get("x-airlock-error")).toBe("AIRLOCK_PAGE_NOT_FOUND");
    expect((await decideRows(id)).map((r) => r.error)).toEqual(["AIRLOCK_APPROVAL_CALL_GONE"]);
  });

  it("refuses AIRLOCK_APPROVAL_CALL_GONE for a call whose replica died while its heartbeat was still fresh", async () => {
    const cluster = raw.cluster;
    if (cluster === undefined) throw new Error("expected a cluster store");
    // A replica that beat a moment ago, then died (SIGKILL): its row stays, nothing will take it.
    await cluster.heartbeat("ghost", 0, 2000);
    await cluster.insertApproval({
      id: "apr_ghost_race",
      runId: "r",
      agent: "ada",
      toolName: "race:echo",
      input: { text: "ghost" },
      requestedAt: new Date().toISOString(),
      replica: "ghost",
    });
    const answer = await decideOver(servers[1] as AdminServer, "apr_ghost_race", { approve: true });
    expect(answer).toMatchObject({ status: 410, code: "AIRLOCK_APPROVAL_CALL_GONE" });
    expect(answer.message).toMatch(/replica ghost stopped/);
    expect((await cluster.getApproval("apr_ghost_race"))?.status).toBe("abandoned");
    expect((await decideRows("apr_ghost_race")).map((r) => r.error)).toEqual(["AIRLOCK_APPROVAL_CALL_GONE"]);

    // The same on the approval page: still listed (pending) when the page opens, refused on approve.
    await cluster.heartbeat("ghost2", 0, 2000);
    await cluster.insertApproval({
      id: "apr_ghost_page",
      runId: "r",
      agent: "ada",
      toolName: "race:echo",
      input: { text: "ghost page" },
      requestedAt: new Date().toISOString(),
      replica: "ghost2",
    });
    const page = await approvalPage(servers[0] as AdminServer, "apr_ghost_page");
    const refused = await page.decide("approve");
    expect(refused.status).toBe(410);
    expect(refused.headers.get("x-airlock-error")).toBe("AIRLOCK_APPROVAL_CALL_GONE");
    expect(await refused.text()).toContain("AIRLOCK_APPROVAL_CALL_GONE");
    const rows = await decideRows("apr_ghost_page");
    expect(rows.map((r) => [r.error, r.details?.via])).toEqual([
      ["AIRLOCK_APPROVAL_CALL_GONE", "approval page"],
    ]);
  });

  it("sees a rollback, a knowledge-level change and an uninstall on one replica at the other's next call", async () => {
    const call = (host: AirlockHost) =>
      host.callTool("ada", "race:echo", { text: "v" }, { agent: "ada", autoApprove: true });
    await a.setKnowledgeLevel("ada", "read");
    expect(textOf(await call(b))).toBe("2.0.0 read");
    await a.plugins.rollback("race");
    expect(textOf(await call(b))).toBe("1.0.0 read");
    await b.setKnowledgeLevel("ada", "write");
    expect(textOf(await call(a))).toBe("1.0.0 write");
    await a.setKnowledgeLevel("ada", "none");
    expect(textOf(await call(b))).toBe("1.0.0 none");
    await a.plugins.uninstall("race");
    const gone = await call(b);
    expect(gone.errorCode).toMatch(/^AIRLOCK_TOOL_(NOT_EXPOSED|UNAVAILABLE)$/);
    expect(internal).toEqual([]);
  });
});
