// The two ProtocolEra objects (era-2025/era.ts, era-2026/era.ts) and the shared elicitation
// rule, without a server: what each era advertises, how it answers a task request, and the
// wire shape (field names and order) of its task answer.
import { describe, expect, test } from "vitest";
import type { ModelTool } from "../../contracts/host.ts";
import type { TaskView } from "../../engine/tasks/types.ts";
import { ERA_2025 } from "./era-2025/era.ts";
import { ERA_2026 } from "./era-2026/era.ts";
import { elicitationModes } from "./people.ts";

const view: TaskView = {
  id: "t1",
  agent: "alpha",
  toolName: "kit:slow",
  status: "working",
  createdAt: Date.UTC(2026, 0, 1),
  updatedAt: Date.UTC(2026, 0, 1, 0, 0, 1),
  ttlMs: 60_000,
  pollIntervalMs: 1000,
};
const tool = (longRunning: boolean) => ({ wireName: "kit__slow", longRunning }) as unknown as ModelTool;
const withExtension = {
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

describe("2025 era", () => {
  test("advertises logging and the tasks utility, a fresh object each time", () => {
    const caps = ERA_2025.capabilities();
    expect(caps).toEqual({ logging: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
    expect(Object.keys(caps)).toEqual(["logging", "tasks"]);
    expect(ERA_2025.capabilities()).not.toBe(caps);
  });

  test("makes a task only when the client sends `task`, and refuses it for a tool that is not long-running", () => {
    expect(ERA_2025.taskRequest({}, tool(true), withExtension)).toBeUndefined();
    expect(ERA_2025.taskRequest({ task: { ttl: 5000.7 } }, tool(true), undefined)).toEqual({ ttlMs: 5000 });
    expect(ERA_2025.taskRequest({ task: {} }, tool(true), undefined)).toEqual({});
    expect(() => ERA_2025.taskRequest({ task: {} }, tool(false), undefined)).toThrow(
      expect.objectContaining({ data: { code: "AIRLOCK_TASK_NOT_SUPPORTED" } }),
    );
  });

  test("answers a task with empty content and the 2025-11-25 Task, fields in wire order", () => {
    const result = ERA_2025.taskResult(view) as { content: unknown[]; task: Record<string, unknown> };
    expect(result.content).toEqual([]);
    expect(Object.keys(result.task)).toEqual([
      "taskId",
      "status",
      "createdAt",
      "lastUpdatedAt",
      "ttl",
      "pollInterval",
    ]);
    expect(result.task.createdAt).toBe("2026-01-01T00:00:00.000Z");
  });
});

describe("2026-07-28 era", () => {
  test("advertises the tasks extension only", () => {
    expect(ERA_2026.capabilities()).toEqual({ extensions: { "io.modelcontextprotocol/tasks": {} } });
  });

  test("makes a task of a long-running tool when the request names the extension, whatever `task` says", () => {
    expect(ERA_2026.taskRequest({}, tool(true), withExtension)).toEqual({});
    expect(ERA_2026.taskRequest({ task: {} }, tool(true), undefined)).toBeUndefined();
    expect(ERA_2026.taskRequest({}, tool(false), withExtension)).toBeUndefined();
  });

  test("answers a task with resultType task and the extension's field names, in wire order", () => {
    const result = ERA_2026.taskResult({ ...view, statusMessage: "half way" });
    expect(Object.keys(result)).toEqual([
      "resultType",
      "taskId",
      "status",
      "statusMessage",
      "createdAt",
      "lastUpdatedAt",
      "ttlMs",
      "pollIntervalMs",
    ]);
    expect(result.resultType).toBe("task");
  });
});

describe("elicitation the client declared", () => {
  test("none without the capability; a bare object is form; url only when named", () => {
    expect(elicitationModes(undefined)).toEqual({ form: false, url: false });
    expect(elicitationModes(null)).toEqual({ form: false, url: false });
    expect(elicitationModes({})).toEqual({ form: true, url: false });
    expect(elicitationModes({ url: {} })).toEqual({ form: false, url: true });
    expect(elicitationModes({ form: {}, url: {} })).toEqual({ form: true, url: true });
  });
});
