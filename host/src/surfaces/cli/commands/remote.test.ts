// `airlock install mcp+…` and `airlock remote …` through the real dispatcher on a real data
// directory against a real remote MCP server; and the same operations over the admin API
// (the routes the console uses) through the CLI's admin client against a running host.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RemoteHost, startRemoteHost } from "../../../../../test/support/remote-host.ts";
import { type RemoteFixture, startRemoteFixture } from "../../../../../test/support/remote-mcp-fixture.ts";
import { adminClient } from "../admin-client.ts";
import { runCli } from "../main.ts";
import type { CliIO } from "../types.ts";
import { installCommand } from "./install.ts";
import { pluginsCommands } from "./plugins.ts";
import { remoteCommands } from "./remote.ts";

const commands = [installCommand, ...pluginsCommands, ...remoteCommands];
let fx: RemoteFixture;
let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeAll(async () => {
  fx = await startRemoteFixture();
});
afterAll(async () => {
  await fx.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-cli-remote-"));
  out = [];
  err = [];
  io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env: {}, cwd: dir };
  fx.driftDescription = "Reports the drift.";
  return () => rmSync(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) => runCli([...argv, "--data-dir", join(dir, "data")], io, commands);

describe("airlock install mcp+… / airlock remote", () => {
  it("installs, marks read-only, shows a change and reviews it", async () => {
    expect(await run("install", `mcp+${fx.url}`, "--namespace", "fx", "--allow-private", "127.0.0.1")).toBe(
      0,
    );
    expect(out.join("")).toContain("as fx@0.0.1");
    expect(out.join("")).toContain("fx:echo");
    out = [];
    expect(await run("remote", "read-only", "fx", "echo")).toBe(0);
    expect(out.join("")).toBe("fx:echo is read-only.\n");
    fx.driftDescription = "Now with different instructions.";
    out = [];
    expect(await run("remote", "status", "fx", "--json")).toBe(0);
    const status = JSON.parse(out.join("")) as {
      changes: Array<{ tool: string; kind: string; listedHash: string }>;
    };
    expect(status.changes).toEqual([expect.objectContaining({ tool: "drifting", kind: "changed" })]);
    out = [];
    expect(await run("remote", "review", "fx", "--expect", `drifting=${status.changes[0]?.listedHash}`)).toBe(
      0,
    );
    expect(out.join("")).toContain("Reviewed 1 change(s).");
    out = [];
    expect(await run("remote", "list", "--json")).toBe(0);
    const [server] = JSON.parse(out.join("")) as Array<{
      revision: number;
      tools: Array<{ tool: string; readOnly: boolean }>;
    }>;
    expect(server?.revision).toBe(3);
    expect(server?.tools.find((t) => t.tool === "echo")?.readOnly).toBe(true);
    expect(await run("plugins", "uninstall", "fx")).toBe(0);
  });

  it("refuses an mcp+ install without --namespace, and remote options on other specs", async () => {
    expect(await run("install", `mcp+${fx.url}`)).not.toBe(0);
    expect(err.join("")).toContain("--namespace");
    err = [];
    expect(await run("install", "weather@^1.0.0", "--namespace", "fx")).not.toBe(0);
    expect(err.join("")).toContain("mcp+ specs only");
  });

  it("refuses an mcp+stdio: install unless --allow-command names its command, and OAuth flags given in part", async () => {
    expect(await run("install", "mcp+stdio:/bin/sh", "--namespace", "sh", "--arg=-c")).not.toBe(0);
    expect(err.join("")).toContain("AIRLOCK_REMOTE_COMMAND_NOT_ALLOWED");
    err = [];
    expect(
      await run("install", "mcp+stdio:/bin/sh", "--namespace", "sh", "--allow-command", "/usr/bin/env"),
    ).not.toBe(0);
    expect(err.join("")).toContain("AIRLOCK_REMOTE_COMMAND_NOT_ALLOWED");
    err = [];
    const partial = ["--namespace", "fx", "--allow-private", "127.0.0.1", "--oauth-provider", "p"];
    expect(await run("install", `mcp+${fx.url}`, ...partial)).not.toBe(0);
    expect(err.join("")).toContain("--oauth-token-url");
    err = [];
    expect(await run("plugins", "list", "--json")).toBe(0);
    expect(JSON.parse(out.join(""))).toEqual([]);
  });
});

describe("the remote routes of the admin API", () => {
  let h: RemoteHost;
  beforeAll(async () => {
    h = await startRemoteHost();
  });
  afterAll(async () => {
    await h.close();
  });

  it("installs, lists, reports, reviews and marks through the admin client", async () => {
    const api = adminClient(h.server.url, h.tokens.operator as string, "test");
    const report = await api.remote.install(`mcp+${fx.url}`, {
      namespace: "fx",
      allowPrivate: ["127.0.0.1"],
    });
    expect(report).toMatchObject({ namespace: "fx", version: "0.0.1" });
    expect((await api.remote.list())[0]?.tools.map((t) => t.tool)).toContain("get_image");
    expect(await api.remote.setReadOnly("fx", "echo", true)).toMatchObject({ readOnly: true });
    await expect(api.remote.setReadOnly("fx", "nope", true)).rejects.toMatchObject({
      code: "AIRLOCK_REMOTE_TOOL_UNKNOWN",
    });
    fx.driftDescription = "Changed once more.";
    const status = await api.remote.status("fx");
    expect(status.changes.map((c) => c.tool)).toEqual(["drifting"]);
    await expect(api.remote.review("fx", { expect: { drifting: "f".repeat(64) } })).rejects.toMatchObject({
      code: "AIRLOCK_REMOTE_DEFINITION_CHANGED",
    });
    expect((await api.remote.review("fx")).revision).toBe(3);
    await expect(api.remote.status("nothere")).rejects.toMatchObject({ code: "AIRLOCK_REMOTE_NOT_REMOTE" });
    const agent = adminClient(h.server.url, h.tokens.alpha as string, "test");
    await expect(agent.remote.list()).rejects.toMatchObject({ code: "AIRLOCK_API_FORBIDDEN" });
  });
});
