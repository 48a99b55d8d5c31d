// testTool's own refusals: a tool the plugin does not define, and a directory that does not build,
// each with its stable code (and the build's code inside the message).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testTool } from "./index.ts";

const roomDir = resolve(import.meta.dirname, "../../../plugins/room");

describe("testTool", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("names the tools a plugin has when asked for one it does not", async () => {
    await expect(testTool({ pluginDir: roomDir, tool: "nope", input: {} })).rejects.toMatchObject({
      code: "AIRLOCK_SDK_TESTING_UNKNOWN_TOOL",
      message: expect.stringContaining("room:post_event"),
    });
  });

  it("refuses a directory that does not build, carrying the build's code", async () => {
    const dir = await mkdtemp(join(tmpdir(), "airlock-broken-"));
    dirs.push(dir);
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "broken", version: "1.0.0" }));
    await expect(testTool({ pluginDir: dir, tool: "x", input: {} })).rejects.toMatchObject({
      code: "AIRLOCK_SDK_TESTING_BUILD_FAILED",
      message: expect.stringContaining("AIRLOCK_SDK_BUILD_ENTRY"),
    });
  });
});
