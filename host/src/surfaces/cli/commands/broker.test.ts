// `airlock models …` and `airlock oauth …` through the real dispatcher on a real data directory
// (no host running): a connection stored with its key taken from the environment, granted to a
// plugin with a budget, listed, revoked and removed; the key is in no output; bad input gets
// AIRLOCK_CLI_USAGE or the host's own code.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../main.ts";
import type { CliIO } from "../types.ts";
import { agentsCommands } from "./agents.ts";
import { brokerCommands } from "./broker.ts";

const KEY = "sk-cli-canary-0f9e8d7c6b5a";
let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-cli-broker-"));
  out = [];
  err = [];
  io = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    env: { OPENAI_KEY: KEY },
    cwd: dir,
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (...argv: string[]) =>
  runCli([...argv, "--data-dir", join(dir, "data")], io, [...agentsCommands, ...brokerCommands]);

describe("airlock models and airlock oauth", () => {
  it("stores a connection, grants it with a budget, lists, revokes and removes it", async () => {
    expect(await run("agents", "create", "bot")).toBe(0);
    expect(
      await run(
        "models",
        "set",
        "openai",
        "--base-url",
        "https://api.openai.com/v1",
        "--model",
        "gpt-4o-mini",
        "--api-key-env",
        "OPENAI_KEY",
      ),
    ).toBe(0);
    expect(out.at(-1)).toContain("Model connection openai: gpt-4o-mini at https://api.openai.com/v1");
    expect(await run("models", "list", "--json")).toBe(0);
    expect(JSON.parse(out.at(-1) as string)).toEqual([
      expect.objectContaining({ name: "openai", model: "gpt-4o-mini", keySet: true }),
    ]);
    expect(
      await run("models", "grant", "bot", "summarizer", "openai", "--max-calls", "50", "--period", "month"),
    ).toBe(0);
    expect(await run("models", "grants", "bot")).toBe(0);
    expect(out.at(-1)).toContain(
      "summarizer\topenai\t0 calls, 0 tokens this month (limit 50 calls, ∞ tokens)",
    );
    expect(await run("models", "revoke", "bot", "summarizer")).toBe(0);
    expect(out.at(-1)).toBe("Revoked.\n");
    expect(await run("models", "remove", "openai")).toBe(0);
    expect(await run("oauth", "list", "bot")).toBe(0);
    expect(out.at(-1)).toBe("No OAuth connections for bot.\n");
    expect([...out, ...err].join("")).not.toContain(KEY);
    for (const file of ["airlock.db", "audit.db"]) {
      expect(readFileSync(join(dir, "data", file)).includes(Buffer.from(KEY))).toBe(false);
    }
  });

  it("refuses bad input with codes and never takes a key from argv", async () => {
    expect(
      await run(
        "models",
        "set",
        "openai",
        "--base-url",
        "https://x/v1",
        "--model",
        "m",
        "--api-key-env",
        "MISSING",
      ),
    ).toBe(2);
    expect(err.join("")).toContain("MISSING is not set");
    expect(
      await run("models", "set", "openai", "--base-url", "https://x/v1", "--model", "m", "--api-key", KEY),
    ).toBe(2);
    expect(await run("agents", "create", "bot")).toBe(0);
    expect(await run("models", "grant", "bot", "p", "nope")).not.toBe(0);
    expect(err.join("")).toContain("AIRLOCK_MODEL_CONNECTION_INVALID");
    expect(await run("models", "grant", "bot", "p", "nope", "--max-calls", "lots")).toBe(2);
    expect(await run("oauth", "link", "bot", "gh", "github")).not.toBe(0);
    expect(err.join("")).toContain("AIRLOCK_OAUTH_LINK_INVALID");
    expect([...out, ...err].join("")).not.toContain(KEY);
  });
});
