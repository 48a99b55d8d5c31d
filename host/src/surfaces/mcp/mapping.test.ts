// The pure host ↔ MCP mappings: every content type passes through unchanged; notifications
// respect the progress token and the client's log level.
import { describe, expect, test } from "vitest";
import type { ModelTool } from "../../contracts/host.ts";
import { logLevelPasses, toCallToolResult, toMcpNotification, toMcpTool } from "./mapping.ts";

describe("toCallToolResult", () => {
  test("passes every MCP content type through unchanged, with the call id and error code in _meta", () => {
    const content = [
      { type: "text" as const, text: "t" },
      { type: "image" as const, data: "aW1n", mimeType: "image/png" },
      { type: "audio" as const, data: "YXVk", mimeType: "audio/wav" },
      {
        type: "resource_link" as const,
        uri: "https://x.test/a",
        name: "a",
        mimeType: "text/plain",
        description: "d",
      },
      { type: "resource" as const, resource: { uri: "mem://b", mimeType: "text/plain", text: "b" } },
      { type: "resource" as const, resource: { uri: "mem://c", blob: "Yw==" } },
    ];
    const result = toCallToolResult({
      callId: "c1",
      toolName: "ns:t",
      result: { content, isError: true, structuredContent: { a: 1 } },
      errorCode: "AIRLOCK_X",
      blocked: true,
      durationMs: 3,
    });
    expect(result).toEqual({
      content,
      isError: true,
      structuredContent: { a: 1 },
      _meta: { "airlock/callId": "c1", "airlock/errorCode": "AIRLOCK_X", "airlock/blocked": true },
    });
  });
});

describe("toMcpTool", () => {
  const base: ModelTool = {
    id: "ns:doIt",
    wireName: "ns__doIt",
    description: "d",
    inputSchema: { properties: {} },
    annotations: { readOnlyHint: true },
  };

  test("forces an object input schema and keeps only object output schemas", () => {
    expect(toMcpTool(base, "wire").inputSchema.type).toBe("object");
    expect(toMcpTool({ ...base, outputSchema: { type: "string" } }, "wire").outputSchema).toBeUndefined();
    expect(toMcpTool({ ...base, outputSchema: { type: "object" } }, "wire").outputSchema).toEqual({
      type: "object",
    });
  });

  test("names the tool by wire name or bare name", () => {
    expect(toMcpTool(base, "wire").name).toBe("ns__doIt");
    expect(toMcpTool(base, "bare").name).toBe("doIt");
  });
});

describe("toMcpNotification", () => {
  test("sends progress only when the client gave a progress token", () => {
    const n = { type: "progress" as const, progress: 1, total: 4 };
    expect(toMcpNotification(n, "t", undefined, undefined)).toBeUndefined();
    expect(toMcpNotification(n, "t", "tok", undefined)).toEqual({
      method: "notifications/progress",
      params: { progressToken: "tok", progress: 1, total: 4 },
    });
  });

  test("filters log lines by the client's minimum level", () => {
    expect(logLevelPasses("info", undefined)).toBe(true);
    expect(logLevelPasses("info", "warning")).toBe(false);
    expect(logLevelPasses("error", "warning")).toBe(true);
    expect(
      toMcpNotification({ type: "log", level: "debug", message: "m" }, "t", undefined, "info"),
    ).toBeUndefined();
  });
});
