// MCP tasks across replicas on one real PostgreSQL: a task started through one host is run by
// another replica's pg-boss worker, read, its result fetched and cancelled through another host,
// in both eras (SDK v1 client for 2025-11-25; raw JSON-RPC for the 2026-07-28 extension, which
// SDK v2 2.4.0's client cannot read); and a replica SIGKILLed in the middle of a task leaves it
// `failed` with AIRLOCK_TASK_REPLICA_LOST when its tool is not read-only (the front replica
// runs no tasks, so nothing could resume it anyway), read through the surviving host. The slow
// tools wait in slices (host/src/engine/tasks/test-support.ts). Resuming a read-only tool's task
// on another replica is test/e2e/mcp-tasks-resume.test.ts.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { HostOptions } from "../../host/src/config.ts";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { JOBS } from "../../host/src/engine/tasks/test-support.ts";
import { createHost } from "../../host/src/host.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { kitTarball } from "../../host/src/surfaces/http/test-support.ts";
import { modern } from "../support/mcp-modern.ts";
import { describePg, PG_URL } from "../support/postgres.ts";

interface Replica {
  host: AirlockHost;
  server: AdminServer;
}

async function replica(options: HostOptions): Promise<Replica> {
  const host = await createHost(options);
  const server = await startAdminServer(host, { port: 0, disableHostCheck: true, log: () => undefined });
  return { host, server };
}

async function v1(r: Replica, token: string): Promise<V1Client> {
  const client = new V1Client({ name: "replicas", version: "1.0.0" }, { capabilities: { tasks: {} } });
  await client.connect(
    new V1Transport(new URL(r.server.mcpUrl("alpha")), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

async function startTask(client: V1Client, ms: number, tool = "jobs__crunch"): Promise<string> {
  const created = await client.request(
    { method: "tools/call", params: { name: tool, arguments: { ms }, task: {} } },
    CreateTaskResultSchema,
  );
  return created.task.taskId;
}

/** The replica that claimed the task, read from its row. */
async function claimedBy(schema: string, id: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ replica: string | null }>(
      `SELECT replica FROM "${schema}".tasks WHERE id = $1`,
      [id],
    );
    return rows[0]?.replica ?? null;
  } finally {
    await client.end();
  }
}

async function setUp(front: Replica): Promise<string> {
  await front.host.plugins.installTarball(kitTarball(JOBS), "jobs.tgz", { allowUnsigned: true });
  await front.host.createAgent("alpha");
  await front.host.setToolsEnabled("alpha", { "jobs:crunch": true, "jobs:stamp": true });
  return (await front.host.issueToken("agent", "alpha", "tasks")).token;
}

describePg("MCP tasks across replicas on one PostgreSQL", () => {
  const schema = freshSchemaName();
  const dirs: string[] = [];
  let front: Replica;
  let worker: Replica;
  let token: string;

  beforeAll(async () => {
    const masterKey = randomBytes(32).toString("base64");
    const base = async (id: string, concurrency: number): Promise<HostOptions> => {
      const dataDir = await mkdtemp(join(tmpdir(), `airlock-tasks-${id}-`));
      dirs.push(dataDir);
      return {
        dataDir,
        store: { kind: "postgres", url: PG_URL, schema },
        sandbox: { mode: "in-process" },
        masterKey,
        replica: { id, heartbeatMs: 300 },
        tasks: { concurrency, pollIntervalMs: 100 },
        onInternalError: () => undefined,
      };
    };
    // The front replica runs no task calls itself: every task goes through the queue to the worker.
    front = await replica(await base("front", 0));
    worker = await replica(await base("worker", 2));
    token = await setUp(front);
  });
  afterAll(async () => {
    for (const r of [front, worker]) {
      await r?.server.close();
      await r?.host.close();
    }
    await dropSchemas(PG_URL, [schema]);
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("tells a session on the front replica when the worker replica completes its task (notifications/tasks/status)", async () => {
    let opened: () => void = () => undefined;
    const streamOpen = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const statuses: Array<{ taskId: string; status: string }> = [];
    const client = new V1Client({ name: "replicas", version: "1.0.0" }, { capabilities: { tasks: {} } });
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      statuses.push(n.params as (typeof statuses)[number]);
    });
    await client.connect(
      new V1Transport(new URL(front.server.mcpUrl("alpha")), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if ((init?.method ?? "GET") === "GET" && response.ok) opened();
          return response;
        },
      }),
    );
    await streamOpen;
    const id = await startTask(client, 100);
    await expect
      .poll(() => statuses.find((s) => s.taskId === id)?.status, { timeout: 30_000 })
      .toBe("completed");
    expect(await claimedBy(schema, id)).toBe("worker");
    await client.close();
  });

  it("runs a task started through one replica on another, reads it through the other and fetches its result through the first", async () => {
    const a = await v1(front, token);
    const b = await v1(worker, token);
    const id = await startTask(a, 300);
    let status = "working";
    for (let i = 0; i < 100 && status === "working"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await b.experimental.tasks.getTask(id)).status;
    }
    expect(status).toBe("completed");
    expect(await claimedBy(schema, id)).toBe("worker");
    const result = await a.experimental.tasks.getTaskResult(id, CallToolResultSchema);
    expect(result.content).toEqual([{ type: "text", text: "crunched 300 ms" }]);
    await a.close();
    await b.close();
  });

  it("cancels through one replica a task another replica is running; the running call stops", async () => {
    const a = await v1(front, token);
    const b = await v1(worker, token);
    const id = await startTask(a, 1800);
    await expect.poll(() => claimedBy(schema, id), { timeout: 10_000 }).toBe("worker");
    expect((await b.experimental.tasks.cancelTask(id)).status).toBe("cancelled");
    expect((await a.experimental.tasks.getTask(id)).status).toBe("cancelled");
    // The worker learns of it from its next beat and aborts the call.
    await expect.poll(() => worker.host.tasks.running(), { timeout: 3000 }).toBe(0);
    expect((await a.experimental.tasks.getTask(id)).status).toBe("cancelled");
    await a.close();
    await b.close();
  });

  it("2026-07-28: a task handle from one replica is polled to its result and cancelled through another", async () => {
    const url = (r: Replica) => r.server.mcpUrl("alpha");
    const created = await modern(url(front), token, "tools/call", {
      name: "jobs__crunch",
      arguments: { ms: 200 },
    });
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    let task = created;
    for (let i = 0; i < 100 && task.status === "working"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      task = await modern(url(worker), token, "tasks/get", { taskId: created.taskId });
    }
    expect(task).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "crunched 200 ms" }] },
    });
    const long = await modern(url(worker), token, "tools/call", {
      name: "jobs__crunch",
      arguments: { ms: 1800 },
    });
    expect(await modern(url(front), token, "tasks/cancel", { taskId: long.taskId })).toEqual({
      resultType: "complete",
    });
    expect(await modern(url(worker), token, "tasks/get", { taskId: long.taskId })).toMatchObject({
      status: "cancelled",
    });
  });
});

describePg("a replica killed in the middle of a task", () => {
  const schema = freshSchemaName();
  /** A worker replica in its own process (task-worker-child.ts), once it is serving. */
  const startWorker = async (dataDir: string, masterKey: string): Promise<ChildProcess> => {
    const proc = spawn(
      process.execPath,
      [join(import.meta.dirname, "task-worker-child.ts"), PG_URL, schema, dataDir, masterKey],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    proc.stderr?.on("data", (d) => {
      stderr += String(d);
    });
    const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
    const first = await lines.next();
    if (first.done === true || first.value !== "READY") throw new Error(`worker did not start: ${stderr}`);
    return proc;
  };
  let restart: () => Promise<ChildProcess>;
  const dirs: string[] = [];
  let front: Replica;
  let child: ChildProcess | undefined;
  let token: string;

  beforeAll(async () => {
    const masterKey = randomBytes(32).toString("base64");
    const frontDir = await mkdtemp(join(tmpdir(), "airlock-tasks-front-"));
    const childDir = await mkdtemp(join(tmpdir(), "airlock-tasks-child-"));
    dirs.push(frontDir, childDir);
    front = await replica({
      dataDir: frontDir,
      store: { kind: "postgres", url: PG_URL, schema },
      sandbox: { mode: "in-process" },
      masterKey,
      replica: { id: "front", heartbeatMs: 300, staleMs: 1500 },
      tasks: { concurrency: 0, pollIntervalMs: 100 },
      onInternalError: () => undefined,
    });
    token = await setUp(front);
    child = await startWorker(childDir, masterKey);
    restart = () => startWorker(childDir, masterKey);
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    await front?.server.close();
    await front?.host.close();
    await dropSchemas(PG_URL, [schema]);
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("marks the task failed with AIRLOCK_TASK_REPLICA_LOST, read through the surviving replica", async () => {
    const client = await v1(front, token);
    const id = await startTask(client, 1800, "jobs__stamp");
    await expect.poll(() => claimedBy(schema, id), { timeout: 15_000 }).toBe("child");
    const exited = new Promise((resolve) => child?.once("exit", resolve));
    child?.kill("SIGKILL");
    await exited;
    await expect
      .poll(async () => (await client.experimental.tasks.getTask(id)).status, {
        timeout: 10_000,
        interval: 200,
      })
      .toBe("failed");
    const task = await client.experimental.tasks.getTask(id);
    expect(task.statusMessage).toContain("no sign of life");
    await expect(client.experimental.tasks.getTaskResult(id, CallToolResultSchema)).rejects.toMatchObject({
      code: -32603,
      data: { code: "AIRLOCK_TASK_REPLICA_LOST" },
    });
    // The surviving replica still serves; with no worker alive a new task waits in the queue
    // (airlock_task_queue_depth), and a worker that starts later runs it.
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("jobs__crunch");
    const queued = await startTask(client, 100);
    expect(await front.host.tasks.queueDepth()).toBe(1);
    child = await restart();
    await expect
      .poll(async () => (await client.experimental.tasks.getTask(queued)).status, {
        timeout: 15_000,
        interval: 200,
      })
      .toBe("completed");
    expect(await claimedBy(schema, queued)).toBe("child");
    expect(await front.host.tasks.queueDepth()).toBe(0);
    await client.close();
  });
});
