// The catalogue as runs see it: enablement, served/not served, snapshots, restrictions, harness
// injection, presentations kept away from model schemas. Real host: SQLite + in-process sandbox.
import { hasCode } from "@airlock/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FixturePlugin } from "./test-fixtures.ts";
import { openTestHost, type TestHost } from "./test-host.ts";

const readOnly = { readOnlyHint: true };
const weather: FixturePlugin = {
  namespace: "weather",
  tools: [
    {
      name: "forecast",
      code: "async (input) => 'sunny in ' + input.city",
      category: "weather",
      annotations: readOnly,
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      presentation: { label: "Forecast", icon: "sun", tone: "info", group: "outdoors" },
    },
    {
      name: "alerts",
      code: "async (input, ctx) => 'key ends ' + (await ctx.secrets.get('api_key')).slice(-1)",
      category: "weather",
      annotations: readOnly,
      requiredSecrets: [{ key: "api_key", type: "text", optional: false, sensitive: true }],
    },
    { name: "open_door", code: "async () => 'opened'", annotations: readOnly, harness: "room" },
  ],
};
const notes: FixturePlugin = {
  namespace: "notes",
  tools: [{ name: "list", code: "async () => 'none'", category: "notes", annotations: readOnly }],
};

let t: TestHost;
beforeEach(async () => {
  t = await openTestHost([weather, notes]);
  await t.host.createAgent("ada");
});
afterEach(async () => t.close());

describe("catalogue and runs", () => {
  it("lists installed tools as namespace:tool, without harness tools or presentations", async () => {
    const tools = await t.host.listTools();
    expect(tools.map((x) => x.id)).toEqual(["notes:list", "weather:alerts", "weather:forecast"]);
    expect(JSON.stringify(tools)).not.toContain("presentation");
    expect(tools.find((x) => x.id === "weather:alerts")?.requiredSecrets.map((s) => s.key)).toEqual([
      "api_key",
    ]);
  });

  it("keeps a new plugin's tools off for an agent until an operator enables them", async () => {
    const run = await t.host.startRun({ agent: "ada" });
    expect(run.tools()).toEqual([]);
    const out = await run.call("weather:forecast", { city: "Oslo" });
    expect(out.errorCode).toBe("AIRLOCK_TOOL_NOT_EXPOSED");
    expect(out.result.isError).toBe(true);
  });

  it("does not serve a tool whose required secret is missing, and serves it once set", async () => {
    await t.host.setToolsEnabled("ada", { "weather:alerts": true });
    const view = (await t.host.listAgentTools("ada")).find((x) => x.id === "weather:alerts");
    expect(view).toMatchObject({ enabled: true, served: false, missingSecrets: ["api_key"] });
    expect((await t.host.startRun({ agent: "ada" })).tools()).toEqual([]);
    await t.host.setSecrets("ada", { api_key: "abcdefghijklmnopq" });
    const out = await t.host.callTool("ada", "weather:alerts", {});
    expect(out.result).toEqual({ content: [{ type: "text", text: "key ends q" }] });
  });

  it("refuses, in a running run, a tool that was enabled or installed after the run started", async () => {
    const run = await t.host.startRun({ agent: "ada" });
    await t.host.setToolsEnabled("ada", { "weather:forecast": true });
    await t.install({
      namespace: "late",
      tools: [{ name: "tool", code: "async () => 'x'", annotations: readOnly }],
    });
    await t.host.setToolsEnabled("ada", { "late:tool": true });
    for (const name of ["weather:forecast", "late:tool", "nope:nothing", "garbage"]) {
      const out = await run.call(name, {});
      expect(out.errorCode).toBe("AIRLOCK_TOOL_NOT_EXPOSED");
      expect(out.result.content[0]).toMatchObject({ type: "text" });
    }
    // A new run sees both (the late plugin was picked up from the store).
    const next = await t.host.startRun({ agent: "ada" });
    expect(next.tools().map((x) => x.id)).toEqual(["late:tool", "weather:forecast"]);
    expect((await next.call("late__tool", {})).result.content).toEqual([{ type: "text", text: "x" }]);
  });

  it("refuses a tool disabled after the run started even though it is in the snapshot", async () => {
    await t.host.setToolsEnabled("ada", { "weather:forecast": true });
    const run = await t.host.startRun({ agent: "ada" });
    await t.host.setToolsEnabled("ada", { "weather:forecast": false });
    expect((await run.call("weather:forecast", { city: "Oslo" })).errorCode).toBe("AIRLOCK_TOOL_DISABLED");
  });

  it("restricts a run to named tools and to categories or presentation groups", async () => {
    await t.host.setToolsEnabled("ada", { "weather:forecast": true, "notes:list": true });
    const ids = async (options: { tools?: string[]; groups?: string[] }) =>
      (await t.host.startRun({ agent: "ada", ...options })).tools().map((x) => x.id);
    expect(await ids({})).toEqual(["notes:list", "weather:forecast"]);
    expect(await ids({ tools: ["notes__list"] })).toEqual(["notes:list"]);
    expect(await ids({ groups: ["outdoors"] })).toEqual(["weather:forecast"]);
    expect(await ids({ groups: ["notes"] })).toEqual(["notes:list"]);
    expect(await ids({ tools: [] })).toEqual([]);
    const restricted = await t.host.startRun({ agent: "ada", groups: ["notes"] });
    expect((await restricted.call("weather:forecast", { city: "x" })).errorCode).toBe(
      "AIRLOCK_TOOL_NOT_EXPOSED",
    );
  });

  it("injects harness tools only into runs that ask for their group", async () => {
    expect((await t.host.startRun({ agent: "ada" })).tools()).toEqual([]);
    const run = await t.host.startRun({ agent: "ada", harness: ["room"] });
    expect(run.tools().map((x) => x.wireName)).toEqual(["weather__open_door"]);
    expect((await run.call("weather:open_door", {})).result.content).toEqual([
      { type: "text", text: "opened" },
    ]);
    const error = await t.host.startRun({ agent: "ada", harness: ["kitchen"] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(hasCode(error, "AIRLOCK_RUN_UNKNOWN_HARNESS_GROUP")).toBe(true);
  });

  it("gives models schemas without presentations and the UI every presentation", async () => {
    await t.host.setToolsEnabled("ada", { "weather:forecast": true });
    const [tool] = (await t.host.startRun({ agent: "ada" })).tools();
    expect(tool).toEqual({
      id: "weather:forecast",
      wireName: "weather__forecast",
      description: "the forecast tool",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      annotations: readOnly,
    });
    expect(await t.host.getToolPresentations()).toEqual({
      "weather:forecast": { label: "Forecast", icon: "sun", tone: "info", group: "outdoors" },
    });
  });

  it("refuses a run for an unknown agent", async () => {
    const error = await t.host.startRun({ agent: "ghost" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(hasCode(error, "AIRLOCK_RUN_AGENT_NOT_FOUND")).toBe(true);
  });
});
