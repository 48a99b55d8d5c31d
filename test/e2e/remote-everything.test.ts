// `@modelcontextprotocol/server-everything` (the MCP project's reference server, from npm)
// started by the test over streamable HTTP and installed as the plugin `every`: its kebab-case
// tools become every:<snake_case>, and an SDK v2 client calls them through Airlock's endpoint.
// The child gets a bare environment (its get-env tool prints the environment it has).
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type RemoteHost, startRemoteHost } from "../support/remote-host.ts";

const entry = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");

let child: ChildProcess;
let h: RemoteHost;

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startEverything(): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [entry, "streamableHttp"], {
    env: { PORT: String(port), PATH: process.env.PATH ?? "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${seen}`)), 20_000);
    proc.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("listening on port")) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${seen}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, process: proc };
}

beforeAll(async () => {
  const started = await startEverything();
  child = started.process;
  h = await startRemoteHost({ limits: { wallMs: 10_000 } });
  await h.host.remote.install(`mcp+${started.url}`, { namespace: "every", allowPrivate: ["127.0.0.1"] });
}, 60_000);
afterAll(async () => {
  await h?.close();
  child?.kill();
});

describe("server-everything as a remote plugin", () => {
  test("lists its tools under every:, kebab-case names mapped, none read-only until an operator says so", async () => {
    const tools = await h.host.listTools();
    const ids = tools.map((t) => t.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        "every:echo",
        "every:get_sum",
        "every:get_tiny_image",
        "every:get_structured_content",
        "every:trigger_long_running_operation",
      ]),
    );
    expect(tools.every((t) => t.annotations.readOnlyHint === false)).toBe(true);
    // Tools it offers only to clients that declare sampling or elicitation are absent: Airlock declares neither.
    expect(ids.some((id) => id.includes("sampling") || id.includes("elicitation"))).toBe(false);
    const [view] = await h.host.remote.list();
    expect(view?.tools.find((t) => t.tool === "get_sum")).toMatchObject({
      remoteName: "get-sum",
      hints: { readOnlyHint: true },
    });
  });

  test("calls text, structured, image and progress tools through Airlock's MCP endpoint", async () => {
    for (const tool of [
      "echo",
      "get_sum",
      "get_tiny_image",
      "get_structured_content",
      "trigger_long_running_operation",
    ]) {
      await h.host.remote.setReadOnly("every", tool, true);
    }
    await h.host.setToolsEnabled(
      "alpha",
      Object.fromEntries(
        ["echo", "get_sum", "get_tiny_image", "get_structured_content", "trigger_long_running_operation"].map(
          (t) => [`every:${t}`, true],
        ),
      ),
    );
    const c = await h.mcp("alpha");
    expect(await c.names()).toEqual([
      "every__echo",
      "every__get_structured_content",
      "every__get_sum",
      "every__get_tiny_image",
      "every__trigger_long_running_operation",
    ]);
    expect((await c.call("every__echo", { message: "through airlock" })).content).toEqual([
      { type: "text", text: "Echo: through airlock" },
    ]);
    const sum = await c.call("every__get_sum", { a: 2, b: 3 });
    expect(JSON.stringify(sum.content)).toContain("5");
    const image = await c.call("every__get_tiny_image", {});
    expect(image.content.some((p) => p.type === "image" && p.mimeType === "image/png")).toBe(true);
    const weather = await c.call("every__get_structured_content", { location: "Chicago" });
    expect(weather.structuredContent).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });
    const steps: number[] = [];
    const long = await c.call("every__trigger_long_running_operation", { duration: 1, steps: 2 }, (p) =>
      steps.push(p.progress),
    );
    expect(long.isError).toBeUndefined();
    expect(steps.length).toBeGreaterThan(0);
    await c.close();
    const calls = await h.host.queryAudit({ kind: "tool", plugin: "every" });
    expect(calls.filter((e) => e.action === "call" && e.success === true)).toHaveLength(5);
  });
});
