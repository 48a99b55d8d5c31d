// Tasks that survive their replica: three `airlock serve --store postgres://…` replicas behind a
// real nginx (scale-out-support.ts), every MCP request through nginx. A task of a read-only tool
// whose replica is SIGKILLed mid-call is resumed by one of the two others from its row: the
// client (SDK v1's task API, 2025-11-25) sees its progress and its completion and gets the
// result; exactly one `task.resumed` audit row names the lost replica. A task of a tool that is
// not read-only, in the same situation, is never run again: it fails with
// AIRLOCK_TASK_REPLICA_LOST (raw JSON-RPC, 2026-07-28 tasks extension). Each test waits on
// conditions (polls), never on the clock; its own timeout is generous for a loaded machine.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { JOBS } from "../../host/src/engine/tasks/test-support.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { kitTarball } from "../../host/src/surfaces/http/test-support.ts";
import { modern } from "../support/mcp-modern.ts";
import { PG_URL, probePostgres } from "../support/postgres.ts";
import {
  freePort,
  NGINX,
  type Nginx,
  openSetupHost,
  type Replica,
  replica,
  startNginx,
} from "./scale-out-support.ts";

const pgProbe = await probePostgres();
const missing = !pgProbe.ok
  ? pgProbe.reason
  : NGINX === undefined
    ? "nginx is not installed (apt-get install nginx)"
    : null;
if (missing !== null && process.env.AIRLOCK_REQUIRE_NGINX === "1")
  throw new Error(`task resume e2e: ${missing}`);
const suite = missing === null ? describe : describe.skip;

/** How long the slow calls take: long enough to be killed mid-call, run again, and watched. */
const CALL_MS = 6000;

interface TaskRowFacts {
  replica: string | null;
  attempts: number;
  status: string;
}

suite(`tasks that survive their replica${missing === null ? "" : ` [skipped: ${missing}]`}`, () => {
  const schema = freshSchemaName("airlock_e2e");
  const masterKey = randomBytes(32).toString("base64");
  let root: string;
  let replicas: Replica[] = [];
  let nginx: Nginx;
  let operator = "";
  let agent = "";
  const db = new pg.Pool({ connectionString: PG_URL, max: 2 });

  const row = async (id: string): Promise<TaskRowFacts | undefined> => {
    const { rows } = await db.query<TaskRowFacts>(
      `SELECT replica, attempts, status FROM "${schema}".tasks WHERE id = $1`,
      [id],
    );
    return rows[0];
  };
  /** The replica that holds the task once one claimed it. */
  const holder = async (id: string): Promise<Replica> => {
    await expect.poll(async () => (await row(id))?.replica ?? null, { timeout: 30_000 }).not.toBeNull();
    const held = (await row(id))?.replica;
    const found = replicas.find((r) => r.id === held);
    if (found === undefined) throw new Error(`task ${id} is held by an unknown replica ${held}`);
    return found;
  };
  const auditOf = async (
    id: string,
  ): Promise<Array<{ action: string; details: Record<string, unknown> }>> => {
    const res = await fetch(`${nginx.url}/api/audit?agent=alpha&kind=tool&limit=200`, {
      headers: { authorization: `Bearer ${operator}` },
    });
    expect(res.status).toBe(200);
    const { entries } = (await res.json()) as {
      entries: Array<{ action: string; details: Record<string, unknown> | null }>;
    };
    return entries
      .filter((e) => e.details?.taskId === id)
      .map((e) => ({ action: e.action, details: e.details ?? {} }));
  };
  const api = (method: string, path: string, body: unknown, contentType = "application/json") =>
    fetch(`${nginx.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${operator}`, "content-type": contentType },
      body: body instanceof Uint8Array ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "airlock-task-resume-"));
    // Agent and tokens through the library API on the same store (a short-lived fourth host).
    const setup = await openSetupHost(root, schema, masterKey);
    await setup.createAgent("alpha");
    operator = (await setup.issueToken("operator", undefined, "e2e")).token;
    agent = (await setup.issueToken("agent", "alpha", "e2e")).token;
    await setup.close();

    const proxyPort = await freePort();
    const ports = [await freePort(), await freePort(), await freePort()];
    replicas = ports.map((port, i) =>
      replica({
        id: `r${i + 1}`,
        port,
        dataDir: join(root, `r${i + 1}`),
        store: `${PG_URL}?schema=${schema}`,
        allowedHost: `127.0.0.1:${proxyPort}`,
        env: {
          AIRLOCK_MASTER_KEY: masterKey,
          AIRLOCK_REPLICA_HEARTBEAT_MS: "300",
          AIRLOCK_REPLICA_STALE_MS: "1500",
          AIRLOCK_TASKS_POLL_INTERVAL_MS: "100",
          AIRLOCK_TASKS_CONCURRENCY: "2",
          // crunch reports progress every 20 ms: room for a 6 s call's progress calls
          AIRLOCK_LIMITS_CAPABILITY_CALLS: "2000",
        },
      }),
    );
    await Promise.all(replicas.map((x) => x.start()));
    nginx = await startNginx(join(root, "nginx"), proxyPort, ports);
    const installed = await api(
      "POST",
      "/api/plugins?allowUnsigned=true&source=file:jobs.tgz",
      kitTarball(JOBS),
      "application/octet-stream",
    );
    expect(installed.status).toBe(201);
    const enabled = await api("PATCH", "/api/instances/alpha/tools", {
      enabled: { "jobs:crunch": true, "jobs:stamp": true },
    });
    expect(enabled.status).toBe(200);
  }, 90_000);
  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(replicas.map((x) => x.stop("SIGKILL")));
    await db.end();
    await dropSchemas(PG_URL, [schema]);
    await rm(root, { recursive: true, force: true });
  }, 30_000);

  test("a read-only tool's task completes after its replica is SIGKILLed, resumed once by another", async () => {
    const client = new V1Client({ name: "resume", version: "1.0.0" }, { capabilities: { tasks: {} } });
    await client.connect(
      new V1Transport(new URL(`${nginx.url}/mcp/alpha`), {
        requestInit: { headers: { authorization: `Bearer ${agent}` } },
      }),
    );
    const created = await client.request(
      { method: "tools/call", params: { name: "jobs__crunch", arguments: { ms: CALL_MS }, task: {} } },
      CreateTaskResultSchema,
    );
    const id = created.task.taskId;
    const first = await holder(id);
    // Its progress reaches the client through whichever replica nginx picks.
    await expect
      .poll(async () => (await client.experimental.tasks.getTask(id)).statusMessage ?? "", {
        timeout: 30_000,
      })
      .toMatch(/^crunching: \d+$/);
    await first.stop("SIGKILL");

    const seen: Array<{ status: string; statusMessage?: string | undefined }> = [];
    await expect
      .poll(
        async () => {
          const task = await client.experimental.tasks.getTask(id);
          seen.push({ status: task.status, statusMessage: task.statusMessage });
          return task.status;
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe("completed");
    // While it ran again, the client saw that it was resumed (then its progress, marked resumed).
    expect(seen.some((s) => s.status === "working" && /resumed/.test(s.statusMessage ?? ""))).toBe(true);
    const task = await client.experimental.tasks.getTask(id);
    expect(task.statusMessage).toBe("completed after 1 resume on another replica");
    const result = await client.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    expect(result.content).toEqual([{ type: "text", text: `crunched ${CALL_MS} ms` }]);

    const facts = await row(id);
    expect(facts?.attempts).toBe(1);
    expect(facts?.replica).not.toBe(first.id);
    await expect
      .poll(async () => (await auditOf(id)).filter((e) => e.action === "task.resumed"), { timeout: 15_000 })
      .toEqual([
        {
          action: "task.resumed",
          details: { taskId: id, attempt: 1, lostReplica: first.id, replica: facts?.replica },
        },
      ]);
    expect((await auditOf(id)).some((e) => e.action === "task.lost")).toBe(false);
    await client.close();
    // Back to three replicas for the next test.
    await first.start();
  }, 180_000);

  test("a task of a tool that is not read-only is never run again: it fails with AIRLOCK_TASK_REPLICA_LOST", async () => {
    const url = `${nginx.url}/mcp/alpha`;
    const created = await modern(url, agent, "tools/call", {
      name: "jobs__stamp",
      arguments: { ms: CALL_MS },
    });
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    const id = created.taskId as string;
    const first = await holder(id);
    await first.stop("SIGKILL");
    await expect
      .poll(async () => (await modern(url, agent, "tasks/get", { taskId: id })).status, {
        timeout: 60_000,
        interval: 200,
      })
      .toBe("failed");
    const task = await modern(url, agent, "tasks/get", { taskId: id });
    expect(task).toMatchObject({
      status: "failed",
      error: { data: { code: "AIRLOCK_TASK_REPLICA_LOST" } },
    });
    // Never claimed again: still the dead replica's, no attempt counted, no resume audited.
    expect(await row(id)).toEqual({ replica: first.id, attempts: 0, status: "failed" });
    await expect
      .poll(async () => (await auditOf(id)).map((e) => e.action), { timeout: 15_000 })
      .toContain("task.lost");
    expect((await auditOf(id)).some((e) => e.action === "task.resumed")).toBe(false);
    await first.start();
  }, 180_000);
});
