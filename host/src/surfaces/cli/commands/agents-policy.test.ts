// `airlock agents policy` through the real dispatcher on a real data directory, and the same
// change through the admin API route it would use against a running host.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { runCli } from "../main.ts";
import type { CliIO } from "../types.ts";
import { agentsCommands } from "./agents.ts";

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-cli-policy-"));
  out = [];
  err = [];
  io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env: {}, cwd: dir };
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) => runCli([...argv, "--data-dir", join(dir, "data")], io, agentsCommands);

it("shows the default policy, changes it per agent and per tool, and refuses a bad mode", async () => {
  expect(await run("agents", "create", "bot")).toBe(0);
  out.length = 0;
  expect(await run("agents", "policy", "bot")).toBe(0);
  expect(out.join("")).toBe("Approvals for bot: operator\nSecrets a person may enter: none\n");
  out.length = 0;
  expect(
    await run(
      "agents",
      "policy",
      "bot",
      "--approval",
      "client",
      "--tool",
      "notes:deleteNote=operator",
      "--ask-secrets",
      "api_key,token",
    ),
  ).toBe(0);
  expect(out.join("")).toBe(
    "Approvals for bot: client; per tool:\n  notes:deleteNote: operator\nSecrets a person may enter: api_key, token\n",
  );
  out.length = 0;
  expect(await run("agents", "policy", "bot", "--tool", "notes:deleteNote=default", "--json")).toBe(0);
  expect(JSON.parse(out.join(""))).toEqual({
    approval: "client",
    destructive: null,
    tools: {},
    askSecrets: ["api_key", "token"],
  });
  out.length = 0;
  expect(await run("agents", "policy", "bot", "--destructive", "operator")).toBe(0);
  expect(out.join("")).toBe(
    "Approvals for bot: client; destructive tools: operator\nSecrets a person may enter: api_key, token\n",
  );
  out.length = 0;
  expect(await run("agents", "policy", "bot", "--destructive", "default", "--json")).toBe(0);
  expect(JSON.parse(out.join("")).destructive).toBeNull();
  err.length = 0;
  expect(await run("agents", "policy", "bot", "--destructive", "never")).toBe(2);
  expect(err.join("")).toContain("AIRLOCK_CLI_USAGE");
  err.length = 0;
  expect(await run("agents", "policy", "bot", "--approval", "sometimes")).not.toBe(0);
  expect(err.join("")).toContain("AIRLOCK_CLI_USAGE");
  err.length = 0;
  expect(await run("agents", "policy", "bot", "--ask-secrets", "Not-A-Key")).not.toBe(0);
  expect(err.join("")).toContain("AIRLOCK_POLICY_INVALID");
});

it("runs the commands docs/mcp.md prints, as printed", async () => {
  const doc = readFileSync(join(import.meta.dirname, "../../../../../docs/mcp.md"), "utf8");
  const lines = doc.split("\n").filter((l) => l.startsWith("airlock agents policy "));
  expect(lines).toHaveLength(2);
  const [first, second] = lines.map((l) => l.split(" ").slice(1));
  expect(await run("agents", "create", first?.[2] as string)).toBe(0);
  out.length = 0;
  expect(await run(...(first as string[]))).toBe(0);
  expect(out.join("")).toBe(
    "Approvals for support-bot: client; per tool:\n  notes:deleteNote: operator\nSecrets a person may enter: api_key\n",
  );
  out.length = 0;
  expect(await run(...(second as string[]))).toBe(0);
  expect(out.join("")).toBe(
    "Approvals for support-bot: auto; destructive tools: operator; per tool:\n  notes:deleteNote: operator\nSecrets a person may enter: api_key\n",
  );
});
