// A stdio MCP server the host starts itself: `@modelcontextprotocol/server-everything` (from
// node_modules) installed as `mcp+stdio:<node>` with the operator's --allow-command, called
// through the pipeline and Airlock's MCP endpoint. The child's environment is scrubbed (its
// get-env tool prints what it has: no canary the host's environment holds), a command the
// operator did not allow is refused with AIRLOCK_REMOTE_COMMAND_NOT_ALLOWED, the wall time
// applies (the process of a call past it is ended), and the process ends when the plugin is
// uninstalled.
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type RemoteHost, startRemoteHost } from "../support/remote-host.ts";

const entry = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const CANARY = "stdio-env-canary-8f3b2a71";
const node = process.execPath;

let h: RemoteHost;

/** Process ids of server-everything children of this process (ps reads them; Linux CI). */
async function childPids(): Promise<number[]> {
  const { execFileSync } = await import("node:child_process");
  const out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => l.includes(entry))
    .map((l) => Number.parseInt(l.trim(), 10));
}

beforeAll(async () => {
  process.env.AIRLOCK_STDIO_CANARY = CANARY;
  // 8 s per call (the calls reuse the process the install started); the long operation asks for 600 s.
  h = await startRemoteHost({ limits: { wallMs: 8_000 } });
}, 60_000);
afterAll(async () => {
  delete process.env.AIRLOCK_STDIO_CANARY;
  await h?.close();
});

describe("a stdio MCP server the operator allowed", () => {
  test("is refused without --allow-command naming its command, and nothing is written", async () => {
    for (const allowCommand of [undefined, "/bin/sh"]) {
      await expect(
        h.host.remote.install(`mcp+stdio:${node}`, {
          namespace: "every",
          args: [entry, "stdio"],
          ...(allowCommand === undefined ? {} : { allowCommand }),
        }),
      ).rejects.toMatchObject({ code: "AIRLOCK_REMOTE_COMMAND_NOT_ALLOWED" });
    }
    await expect(
      h.host.remote.install(`mcp+stdio:${node}`, {
        namespace: "every",
        allowCommand: node,
        allowPrivate: ["127.0.0.1"],
      }),
    ).rejects.toMatchObject({ code: "AIRLOCK_REMOTE_SPEC_INVALID" });
    expect(await h.host.remote.list()).toEqual([]);
    const refusals = await h.host.queryAudit({ kind: "admin", plugin: "every" });
    expect(
      refusals.filter(
        (e) => e.action === "remote.install" && e.error === "AIRLOCK_REMOTE_COMMAND_NOT_ALLOWED",
      ),
    ).toHaveLength(2);
    expect(refusals.every((e) => e.success === false)).toBe(true);
    expect(await childPids()).toEqual([]);
  });

  test("installs, serves its tools through the pipeline with a scrubbed environment, and ends on uninstall", async () => {
    const report = await h.host.remote.install(`mcp+stdio:${node}`, {
      namespace: "every",
      args: [entry, "stdio"],
      allowCommand: node,
    });
    expect(report.tools).toEqual(expect.arrayContaining(["every:echo", "every:get_env", "every:get_sum"]));
    const [view] = await h.host.remote.list();
    expect(view).toMatchObject({ url: `stdio:${node}`, stdio: { command: node, args: [entry, "stdio"] } });
    await h.host.setToolsEnabled("alpha", {
      "every:echo": true,
      "every:get_env": true,
      "every:get_sum": true,
    });
    const auto = h.autoDecide(true);
    try {
      const echo = await h.host.callTool("alpha", "every:echo", { message: "over stdio" });
      expect(echo.errorCode).toBeUndefined();
      expect(JSON.stringify(echo.result.content)).toContain("over stdio");
      const env = await h.host.callTool("alpha", "every:get_env", {});
      expect(env.errorCode).toBeUndefined();
      const printed = JSON.stringify(env.result.content);
      expect(printed).toContain("PATH");
      expect(printed).not.toContain(CANARY);
      expect(printed).not.toContain("AIRLOCK_");
      // Through Airlock's MCP endpoint, as an agent's client sees it.
      const mcp = await h.mcp("alpha");
      const sum = await mcp.call("every__get_sum", { a: 2, b: 3 });
      expect(JSON.stringify(sum.content)).toContain("5");
      await mcp.close();
    } finally {
      auto();
    }
    // One process serves the calls (the session is kept).
    expect((await childPids()).length).toBe(1);
    // The wall time applies: a call past it stops with AIRLOCK_TOOL_TIMEOUT, and the process
    // that held it is ended (a session whose call failed is never kept).
    await h.host.setToolsEnabled("alpha", { "every:trigger_long_running_operation": true });
    await h.host.remote.setReadOnly("every", "trigger_long_running_operation", true);
    const before = await childPids();
    const slow = await h.host.callTool("alpha", "every:trigger_long_running_operation", {
      duration: 600,
      steps: 2,
    });
    expect(slow.errorCode).toBe("AIRLOCK_TOOL_TIMEOUT");
    const gone = Date.now() + 20_000;
    while ((await childPids()).some((pid) => before.includes(pid)) && Date.now() < gone)
      await new Promise((r) => setTimeout(r, 200));
    expect((await childPids()).filter((pid) => before.includes(pid))).toEqual([]);
    // Uninstalling ends whatever process is left.
    await h.host.plugins.uninstall("every");
    const deadline = Date.now() + 20_000;
    while ((await childPids()).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(await childPids()).toEqual([]);
    expect((await fetch(`${h.server.url}/healthz`)).status).toBe(200);
  }, 120_000);
});
