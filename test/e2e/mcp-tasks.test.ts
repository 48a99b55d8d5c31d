// Long-running calls as MCP tasks on the embedded (SQLite, one process) host, over a real
// socket: the 2025-11-25 tasks utility driven by the SDK v1 client's task API (it outlives the
// client's request timeout, is listed, cancelled, bound to its agent), and the 2026-07-28 tasks
// extension over raw JSON-RPC (SDK v2 2.4.0's client has no task runtime: it rejects a
// `resultType: "task"` answer as an unsupported result type). The slow tool busy-waits in slices
// (host/src/engine/tasks/test-support.ts).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { JOBS } from "../../host/src/engine/tasks/test-support.ts";
import { createHost } from "../../host/src/host.ts";
import { testStore } from "../../host/src/state/store/test-store.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { kitTarball } from "../../host/src/surfaces/http/test-support.ts";
import { modern } from "../support/mcp-modern.ts";

let dir: string;
let host: AirlockHost;
let server: AdminServer;
let alpha: string;
let beta: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "airlock-mcp-tasks-"));
  host = await createHost({
    dataDir: dir,
    store: testStore(dir),
    sandbox: { mode: "in-process" },
    onInternalError: () => undefined,
    tasks: { ttlMs: 120_000, pollIntervalMs: 100 },
  });
  await host.plugins.installTarball(kitTarball(JOBS), "jobs.tgz", { allowUnsigned: true });
  for (const agent of ["alpha", "beta"]) {
    await host.createAgent(agent);
    await host.setToolsEnabled(agent, { "jobs:crunch": true, "jobs:quick": true });
  }
  alpha = (await host.issueToken("agent", "alpha", "t")).token;
  beta = (await host.issueToken("agent", "beta", "t")).token;
  server = await startAdminServer(host, { port: 0, log: () => undefined });
});
afterAll(async () => {
  await server.close();
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

async function v1(agent: string, token: string): Promise<V1Client> {
  const client = new V1Client({ name: "tasks", version: "1.0.0" }, { capabilities: { tasks: {} } });
  await client.connect(
    new V1Transport(new URL(server.mcpUrl(agent)), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

interface TaskMessage {
  type: string;
  task?: { taskId: string; status: string; ttl: number; pollInterval?: number };
  result?: {
    content: Array<{ type: string; text?: string }>;
    isError?: boolean;
    _meta?: Record<string, unknown>;
  };
  error?: unknown;
}

describe("2025-11-25 tasks utility (SDK v1 client)", () => {
  test("lists the long-running tool with taskSupport and declares the tasks capability", async () => {
    const client = await v1("alpha", alpha);
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === "jobs__crunch")?.execution).toEqual({ taskSupport: "optional" });
    expect(tools.find((t) => t.name === "jobs__quick")?.execution).toBeUndefined();
    expect(client.getServerCapabilities()?.tasks).toMatchObject({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    await client.close();
  });

  test("a task that runs longer than the client's request timeout completes and its result is fetched", async () => {
    const client = await v1("alpha", alpha);
    // The same call without a task does not fit in the 1500 ms request timeout (a loaded machine can take more than 400 ms to answer a poll)…
    await expect(
      client.callTool({ name: "jobs__crunch", arguments: { ms: 4000 } }, undefined, { timeout: 1500 }),
    ).rejects.toMatchObject({ code: -32001 });
    // …as a task it answers at once, and every poll and the result fit in it.
    const messages: TaskMessage[] = [];
    const stream = client.experimental.tasks.callToolStream(
      { name: "jobs__crunch", arguments: { ms: 4000 } },
      undefined,
      { task: { ttl: 60_000 }, timeout: 1500 },
    );
    for await (const m of stream) messages.push(m as TaskMessage);
    expect(messages[0]).toMatchObject({
      type: "taskCreated",
      task: { status: "working", ttl: 60_000, pollInterval: 100 },
    });
    expect(messages.filter((m) => m.type === "taskStatus").length).toBeGreaterThan(1);
    const last = messages.at(-1) as TaskMessage;
    expect(last.type).toBe("result");
    expect(last.result?.content).toEqual([{ type: "text", text: "crunched 4000 ms" }]);
    const taskId = messages[0]?.task?.taskId as string;
    expect(last.result?._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId });
    // The result stays retrievable (within its TTL) and the task is listed.
    const again = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(again.content).toEqual([{ type: "text", text: "crunched 4000 ms" }]);
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);
    // The call went through the pipeline like any other: audited as a tool call.
    const callId = last.result?._meta?.["airlock/callId"];
    const audit = await host.queryAudit({ agent: "alpha", kind: "tool" });
    expect(audit.find((a) => a.details?.callId === callId)).toMatchObject({
      plugin: "jobs",
      tool: "crunch",
      success: true,
    });
    await client.close();
  });

  test("tells the session's notification stream when a task ends (notifications/tasks/status)", async () => {
    let opened: () => void = () => undefined;
    const streamOpen = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const statuses: Array<{ taskId: string; status: string; statusMessage?: string }> = [];
    const client = new V1Client({ name: "tasks", version: "1.0.0" }, { capabilities: { tasks: {} } });
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      statuses.push(n.params as (typeof statuses)[number]);
    });
    await client.connect(
      new V1Transport(new URL(server.mcpUrl("alpha")), {
        requestInit: { headers: { authorization: `Bearer ${alpha}` } },
        // Known once the session's GET stream is open: the notification goes there.
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if ((init?.method ?? "GET") === "GET" && response.ok) opened();
          return response;
        },
      }),
    );
    await streamOpen;
    const start = async (ms: number) =>
      (
        (await client.request(
          { method: "tools/call", params: { name: "jobs__crunch", arguments: { ms }, task: {} } },
          CreateTaskResultSchema,
        )) as { task: { taskId: string } }
      ).task.taskId;
    const done = await start(100);
    await expect
      .poll(() => statuses.find((s) => s.taskId === done)?.status, { timeout: 30_000 })
      .toBe("completed");
    const stopped = await start(1800);
    await client.experimental.tasks.cancelTask(stopped);
    await expect
      .poll(() => statuses.find((s) => s.taskId === stopped)?.status, { timeout: 30_000 })
      .toBe("cancelled");
    // Another agent's session hears nothing of alpha's tasks (checked by the agent binding: the
    // hub writes only to the task's agent's streams).
    expect(statuses.every((s) => [done, stopped].includes(s.taskId))).toBe(true);
    await client.close();
  });

  test("cancels a working task; its result is then refused and a second cancel says it is terminal", async () => {
    const client = await v1("alpha", alpha);
    const created = (await client.request(
      { method: "tools/call", params: { name: "jobs__crunch", arguments: { ms: 1800 }, task: {} } },
      CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    const id = created.task.taskId;
    const cancelled = await client.experimental.tasks.cancelTask(id);
    expect(cancelled.status).toBe("cancelled");
    expect((await client.experimental.tasks.getTask(id)).status).toBe("cancelled");
    await expect(client.experimental.tasks.getTaskResult(id, CallToolResultSchema)).rejects.toMatchObject({
      data: { code: "AIRLOCK_TASK_CANCELLED" },
    });
    await expect(client.experimental.tasks.cancelTask(id)).rejects.toMatchObject({
      code: -32602,
      data: { code: "AIRLOCK_TASK_TERMINAL" },
    });
    // The running call stopped (it no longer holds a sandbox slot).
    await expect.poll(() => host.tasks.running(), { timeout: 3000 }).toBe(0);
    await client.close();
  });

  test("another agent's token gets not-found for the task, exactly like an unknown id", async () => {
    const a = await v1("alpha", alpha);
    const created = (await a.request(
      { method: "tools/call", params: { name: "jobs__crunch", arguments: { ms: 50 }, task: {} } },
      CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    const b = await v1("beta", beta);
    for (const id of [created.task.taskId, "00000000-0000-4000-8000-000000000000"]) {
      await expect(b.experimental.tasks.getTask(id)).rejects.toMatchObject({
        code: -32602,
        data: { code: "AIRLOCK_TASK_NOT_FOUND" },
      });
      await expect(b.experimental.tasks.cancelTask(id)).rejects.toMatchObject({
        data: { code: "AIRLOCK_TASK_NOT_FOUND" },
      });
    }
    expect((await b.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(
      created.task.taskId,
    );
    // Each refusal is audited under the agent that asked, naming the id it asked for.
    const refusals = (await host.queryAudit({ agent: "beta", kind: "tool" })).filter((x) => !x.allowed);
    expect(refusals.map((x) => [x.action, x.error, x.details?.taskId])).toEqual(
      expect.arrayContaining([
        ["task.get", "AIRLOCK_TASK_NOT_FOUND", created.task.taskId],
        ["task.cancel", "AIRLOCK_TASK_NOT_FOUND", created.task.taskId],
      ]),
    );
    expect((await a.experimental.tasks.getTask(created.task.taskId)).taskId).toBe(created.task.taskId);
    await a.close();
    await b.close();
  });

  test("refuses a task for a tool that is not long-running", async () => {
    const client = await v1("alpha", alpha);
    await expect(
      client.request(
        { method: "tools/call", params: { name: "jobs__quick", arguments: {}, task: {} } },
        CreateTaskResultSchema,
      ),
    ).rejects.toMatchObject({ code: -32601, data: { code: "AIRLOCK_TASK_NOT_SUPPORTED" } });
    await client.close();
  });
});

const TASKS = { "io.modelcontextprotocol/tasks": {} };

describe("2026-07-28 tasks extension (raw JSON-RPC)", () => {
  test("advertises the extension and answers a long call with a task handle, then the result inline", async () => {
    const url = server.mcpUrl("alpha");
    const discovered = await modern(url, alpha, "server/discover", {});
    // beside the MCP Apps extension every Airlock server advertises (test/e2e/mcp-apps.test.ts)
    expect((discovered.capabilities as { extensions?: unknown }).extensions).toEqual({
      ...TASKS,
      "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] },
    });
    const created = await modern(url, alpha, "tools/call", { name: "jobs__crunch", arguments: { ms: 600 } });
    expect(created).toMatchObject({
      resultType: "task",
      status: "working",
      ttlMs: 120_000,
      pollIntervalMs: 100,
    });
    const taskId = created.taskId as string;
    let task: Record<string, unknown> = created;
    for (let i = 0; i < 100 && task.status === "working"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      task = await modern(url, alpha, "tasks/get", { taskId });
    }
    expect(task).toMatchObject({
      resultType: "complete",
      taskId,
      status: "completed",
      result: { content: [{ type: "text", text: "crunched 600 ms" }] },
    });
    // A client that did not declare the extension gets the plain result on the request.
    const plain = await modern(url, alpha, "tools/call", { name: "jobs__crunch", arguments: { ms: 10 } }, {});
    expect(plain).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "crunched 10 ms" }],
    });
  });

  test("cancels through tasks/cancel and hides the task from another agent", async () => {
    const url = server.mcpUrl("alpha");
    const created = await modern(url, alpha, "tools/call", { name: "jobs__crunch", arguments: { ms: 1800 } });
    const taskId = created.taskId as string;
    await expect(modern(server.mcpUrl("beta"), beta, "tasks/get", { taskId })).rejects.toMatchObject({
      data: { code: "AIRLOCK_TASK_NOT_FOUND" },
    });
    await expect(modern(server.mcpUrl("beta"), beta, "tasks/cancel", { taskId })).rejects.toMatchObject({
      data: { code: "AIRLOCK_TASK_NOT_FOUND" },
    });
    expect(await modern(url, alpha, "tasks/cancel", { taskId })).toEqual({ resultType: "complete" });
    expect(await modern(url, alpha, "tasks/get", { taskId })).toMatchObject({ status: "cancelled" });
  });
});
