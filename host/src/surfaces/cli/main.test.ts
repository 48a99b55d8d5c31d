// The `airlock` dispatcher and its data-directory commands, run in-process through runCli with
// captured output, on a real data directory (SQLite store, in-process sandbox).
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHost } from "../../host.ts";
import { createSurfaceFixture } from "../http/test-support.ts";
import { COMMANDS } from "./commands/index.ts";
import { runCli } from "./main.ts";
import type { CliIO } from "./types.ts";

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "airlock-cli-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  return cliWith({}, ...argv);
}

async function cliWith(
  env: Record<string, string>,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIO = {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    env: { AIRLOCK_DATA_DIR: dataDir, AIRLOCK_SANDBOX: "in-process", ...env },
    cwd: dataDir,
  };
  const code = await runCli(argv, io);
  return { code, out, err };
}

describe("dispatch and help", () => {
  test("lists every command for --help and exits 0", async () => {
    const res = await cli("--help");
    expect(res.code).toBe(0);
    for (const command of COMMANDS) expect(res.out).toContain(`airlock ${command.path.join(" ")}`);
  });

  test("prints each command's own help for --help, wherever the flag is", async () => {
    for (const command of COMMANDS) {
      const res = await cli(...command.path, "--help");
      expect(res.code, command.path.join(" ")).toBe(0);
      expect(res.out).toBe(command.help.endsWith("\n") ? command.help : `${command.help}\n`);
      expect(command.help).toMatch(/Usage: airlock /);
      expect(command.help).toMatch(/Example/);
    }
    expect((await cli("mcp", "--agent", "x", "-h")).out).toContain("Usage: airlock mcp");
  });

  test("lists a group's commands for `airlock agents --help` and refuses an unknown subcommand", async () => {
    const help = await cli("agents", "--help");
    expect(help.code).toBe(0);
    expect(help.out).toContain("airlock agents create");
    expect(help.out).not.toContain("airlock start");
    const unknown = await cli("agents", "explode");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("AIRLOCK_CLI_UNKNOWN_COMMAND");
  });

  test("exits 2 for an unknown command, no command, or an unknown option", async () => {
    expect((await cli("frobnicate")).code).toBe(2);
    expect((await cli()).code).toBe(2);
    const res = await cli("agents", "list", "--colour");
    expect(res.code).toBe(2);
    expect(res.err).toContain("AIRLOCK_CLI_USAGE");
    expect(res.err).not.toMatch(/\n\s+at /);
  });
});

describe("agents and tokens on a data directory", () => {
  test("creates an agent, prints a token, and lists it", async () => {
    const created = await cli("agents", "create", "helper");
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/Agent token: alk_ag_/);
    const credentials = await stat(join(dataDir, "credentials.json"));
    expect(credentials.mode & 0o777).toBe(0o600);
    const listed = await cli("agents", "list", "--json");
    expect(JSON.parse(listed.out)).toEqual([
      expect.objectContaining({ slug: "helper", knowledgeLevel: "read" }),
    ]);
  });

  test("sets the knowledge level and refuses an unknown one", async () => {
    expect((await cli("agents", "level", "helper", "write")).code).toBe(0);
    expect(JSON.parse((await cli("agents", "list", "--json")).out)[0].knowledgeLevel).toBe("write");
    const bad = await cli("agents", "level", "helper", "god");
    expect(bad.code).toBe(2);
  });

  test("refuses to work on an agent that does not exist", async () => {
    const res = await cli("agents", "tools", "ghost");
    expect(res.code).toBe(1);
    expect(res.err).toContain("AIRLOCK_CLI_UNKNOWN_AGENT");
  });

  test("issues an operator token once and revokes it by id", async () => {
    const issued = await cli("tokens", "create", "--role", "operator", "--json");
    expect(issued.code).toBe(0);
    const { id, token } = JSON.parse(issued.out) as { id: string; token: string };
    expect(token).toMatch(/^alk_op_/);
    const host = await createHost({ dataDir, sandbox: { mode: "in-process" } });
    try {
      expect(await host.authenticate(token)).toMatchObject({ id, role: "operator" });
      expect((await cli("tokens", "revoke", id)).code).toBe(0);
      // Revoked by another process on the same data dir: refused once the host's cached lookup
      // ages out (TOKEN_CACHE_MAX_AGE_MS; docs/api.md).
      const refusedBy = Date.now() + 6_000;
      while ((await host.authenticate(token)) !== null && Date.now() < refusedBy)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await host.authenticate(token)).toBeNull();
    } finally {
      await host.close();
    }
    const agentWithoutSlug = await cli("tokens", "create", "--role", "agent");
    expect(agentWithoutSlug.code).toBe(2);
  });
});

describe("secrets from the CLI", () => {
  test("sets a secret from an environment variable and lists it masked", async () => {
    const f = await createSurfaceFixture();
    await f.closeHost();
    try {
      const secret = "sk-cli-secret-987654321";
      const set = await cliWith(
        { KEY: secret },
        "agents",
        "set-secret",
        "alpha",
        "api_key",
        "--from-env",
        "KEY",
        "--data-dir",
        f.dataDir,
      );
      expect(set.code, set.err).toBe(0);
      expect(set.out).not.toContain(secret);
      const listed = await cli("agents", "secrets", "alpha", "--json", "--data-dir", f.dataDir);
      expect(JSON.parse(listed.out)).toEqual([
        expect.objectContaining({ key: "api_key", set: true, sensitive: true }),
      ]);
      expect(listed.out).not.toContain(secret);
      const both = await cli("agents", "set-secret", "alpha", "api_key", "--value", "a", "--from-env", "KEY");
      expect(both.code).toBe(2);
    } finally {
      await f.close();
    }
  });
});
