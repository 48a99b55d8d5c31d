// The three CLIs as a newcomer meets them, run as real processes (cli-support.ts): one-line
// errors `error: AIRLOCK_…: what — what to do` with "did you mean", honest operations
// (revoking, deleting, disabling what does not exist is an error; installing what is active
// changes nothing), the install errors a bad file or a missing .sig gets, `pack --key` writing
// the .sig docs/install.md shows, and the operator's daily commands (approvals, audit, tokens
// list, agents delete) through a running host's admin API. Fresh HOME and data dir per suite.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, type Daemon, daemon, ok } from "./cli-support.ts";

let work: string;
/** Every long-running process a test started, stopped in afterAll even when a test timed out. */
const running: Daemon[] = [];
let env: Record<string, string>;

/** The one error line a failing command prints (after the "airlock: …" target line). */
function errorLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l.startsWith("error"));
}

function oneError(r: { stderr: string }, pattern: RegExp): void {
  const lines = errorLines(r.stderr);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: AIRLOCK_[A-Z_]+: /);
  expect(lines[0]).toMatch(pattern);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "airlock-cli-voice-"));
  env = {
    HOME: join(work, "home"),
    AIRLOCK_DATA_DIR: join(work, "data"),
    AIRLOCK_SANDBOX: "in-process",
  };
  // A signed plugin whose tool waits for an operator (not read-only), built like an author would.
  await ok("airlock-plugin", ["keygen", "--out", "keys", "--name", "acme"], { cwd: work, env });
  await ok("airlock-plugin", ["init", "plug", "--namespace", "hello"], { cwd: work, env });
  const src = join(work, "plug/src/index.ts");
  writeFileSync(src, readFileSync(src, "utf8").replace("readOnlyHint: true", "readOnlyHint: false"));
  await ok("airlock-plugin", ["build"], { cwd: join(work, "plug"), env });
}, 120_000);

afterAll(async () => {
  await Promise.all(running.map((d) => d.stop()));
  rmSync(work, { recursive: true, force: true });
});

describe("one voice", () => {
  it("answers a mistyped command with one line naming the nearest command, not the command list", async () => {
    const airlock = await cli("airlock", ["strat"], { cwd: work, env });
    expect(airlock.status).toBe(2);
    expect(airlock.stderr).toBe(
      "error: AIRLOCK_CLI_UNKNOWN_COMMAND: no command `airlock strat` — did you mean `airlock start`?\n",
    );
    const registry = await cli("airlock-registry", ["sevre"], { cwd: work, env });
    expect(registry.status).toBe(2);
    oneError(
      registry,
      /^error: AIRLOCK_REGISTRY_UNKNOWN_COMMAND: .*did you mean `airlock-registry serve`\?$/,
    );
    const plugin = await cli("airlock-plugin", ["biuld"], { cwd: work, env });
    expect(plugin.status).toBe(2);
    oneError(plugin, /^error: AIRLOCK_SDK_UNKNOWN_COMMAND: .*did you mean `airlock-plugin build`\?$/);
  });

  it("gives airlock-registry and airlock-plugin errors the `error: CODE:` form", async () => {
    const owner = await cli("airlock-registry", ["token", "create", "--data-dir", join(work, "reg")], {
      env,
    });
    expect(owner.status).toBe(2);
    oneError(
      owner,
      /^error: AIRLOCK_REGISTRY_USAGE: missing --owner NAME — usage: airlock-registry token create/,
    );
    const option = await cli("airlock-plugin", ["pack", "--kye", "x"], { cwd: work, env });
    expect(option.status).toBe(2);
    oneError(option, /^error: AIRLOCK_SDK_USAGE: unknown option --kye — did you mean --key\?$/);
    const group = await cli("airlock", ["agents"], { cwd: work, env });
    expect(group.status).toBe(2);
    expect(group.stderr).toContain("airlock agents delete");
    expect(group.stderr).not.toContain("airlock start");
  });
});

describe("agents, tokens and plugins on a data dir", () => {
  it("says what an agent slug may hold, and names the agent a typo meant", async () => {
    const bad = await cli("airlock", ["agents", "create", "Bad_Name"], { cwd: work, env });
    expect(bad.status).toBe(1);
    oneError(bad, /AIRLOCK_AGENT_INVALID_SLUG: .*lowercase letters, digits and hyphens.*"bad-name"/);
    await ok("airlock", ["agents", "create", "example"], { cwd: work, env });
    const typo = await cli("airlock", ["agents", "tools", "exampel"], { cwd: work, env });
    expect(typo.status).toBe(1);
    oneError(typo, /AIRLOCK_CLI_UNKNOWN_AGENT: no agent "exampel" — did you mean "example"\?$/);
    expect(typo.stderr).not.toContain("agents create exampel");
  });

  it("refuses to revoke a token that does not exist, and lists tokens without their values", async () => {
    const revoke = await cli("airlock", ["tokens", "revoke", "tok_nope"], { cwd: work, env });
    expect(revoke.status).toBe(1);
    expect(revoke.stdout).not.toContain("revoked");
    oneError(revoke, /^error: AIRLOCK_AUTH_TOKEN_NOT_FOUND: no token has id "tok_nope"/);
    const list = await ok("airlock", ["tokens", "list", "--json"], { cwd: work, env });
    const tokens = JSON.parse(list.stdout) as { id: string; agent: string | null }[];
    expect(tokens.some((t) => t.agent === "example")).toBe(true);
    expect(list.stdout).not.toMatch(/alk_ag_[A-Za-z0-9_-]{20,}/);
  });

  it("writes the .sig with pack --key, installs with --trust-key, and installs the same version again as a no-op", async () => {
    const pack = await ok("airlock-plugin", ["pack", "--key", "../keys/acme.key"], {
      cwd: join(work, "plug"),
      env,
    });
    expect(pack.stdout).toContain("signed hello-0.1.0.tgz.sig");
    const tgz = join(work, "plug/hello-0.1.0.tgz");
    expect(JSON.parse(readFileSync(`${tgz}.sig`, "utf8"))).toMatchObject({
      keyid: expect.stringMatching(/^SHA256:/),
    });
    const first = await ok("airlock", ["install", tgz, "--trust-key", "keys/acme.pub"], { cwd: work, env });
    expect(first.stdout).toContain("Installed hello@0.1.0");
    const again = await cli("airlock", ["install", tgz, "--trust-key", "keys/acme.pub"], { cwd: work, env });
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(
      "hello@0.1.0 is already installed and active (same contents) — nothing changed",
    );
    expect(again.stdout).not.toContain("Installed");
  });

  it("says what is wrong with a file before signatures, and names the .sig it looked for", async () => {
    const junk = join(work, "junk.tgz");
    writeFileSync(junk, "this is not a tarball at all");
    const garbage = await cli("airlock", ["install", junk, "--trust-key", "keys/acme.pub"], {
      cwd: work,
      env,
    });
    expect(garbage.status).toBe(1);
    oneError(garbage, /^error: AIRLOCK_PACKAGE_NOT_GZIP: \S*junk\.tgz is not a plugin tarball: /);
    expect(garbage.stderr).not.toContain("signed");
    const copy = join(work, "nosig.tgz");
    writeFileSync(copy, readFileSync(join(work, "plug/hello-0.1.0.tgz")));
    const unsigned = await cli("airlock", ["install", copy, "--trust-key", "keys/acme.pub"], {
      cwd: work,
      env,
    });
    expect(unsigned.status).toBe(1);
    oneError(unsigned, /AIRLOCK_INSTALL_UNSIGNED: .*no .*nosig\.tgz\.sig beside it/);
    const sign = await ok("airlock-plugin", ["sign", copy, "--key", "keys/acme.key"], { cwd: work, env });
    expect(sign.stdout).toContain("nosig.tgz.sig");
    expect(existsSync(`${copy}.sig`)).toBe(true);
  });

  it("names the tool or namespace a typo meant, and refuses to disable a tool that is not enabled", async () => {
    const tool = await cli("airlock", ["agents", "enable", "example", "hello:gret"], { cwd: work, env });
    expect(tool.status).toBe(1);
    oneError(tool, /AIRLOCK_CLI_UNKNOWN_TOOL: .*did you mean "hello:greet"\?$/);
    const ns = await cli("airlock", ["agents", "enable", "example", "helo:greet"], { cwd: work, env });
    oneError(ns, /AIRLOCK_CLI_UNKNOWN_TOOL: .*no plugin namespace "helo".*did you mean "hello"\?$/);
    const plugin = await cli("airlock", ["plugins", "rollback", "helo"], { cwd: work, env });
    expect(plugin.status).toBe(1);
    oneError(
      plugin,
      /AIRLOCK_INSTALL_NOT_INSTALLED: no plugin is installed under "helo" — did you mean "hello"\?$/,
    );
    const off = await cli("airlock", ["agents", "disable", "example", "hello:greet"], { cwd: work, env });
    expect(off.status).toBe(1);
    oneError(off, /^error: AIRLOCK_CLI_NOT_ENABLED: hello:greet is not enabled for example/);
    await ok("airlock", ["agents", "enable", "example", "hello:greet"], { cwd: work, env });
  });
});

describe("the operator's daily commands through a running host", () => {
  it("lists and approves a waiting call, shows it in the audit, and deletes an agent", async () => {
    const host = await daemon("airlock", ["serve", "--port", "0"], /Press Ctrl\+C/, { cwd: work, env });
    running.push(host);
    try {
      const admin = /Admin API:\s+(http:\/\/\S+)\/api/.exec(host.output())?.[1] as string;
      const operator = /Operator token:\s+(\S+)/.exec(host.output())?.[1] as string;
      // Ready once it printed the agent's earlier entries; what it prints later is new.
      const follow = await daemon(
        "airlock",
        ["audit", "--follow", "--interval", "1", "--agent", "example", "--json"],
        /agent\.create/,
        { cwd: work, env },
      );
      running.push(follow);
      const before = follow.output().length;
      // A call that waits for an operator's approval.
      const call = fetch(`${admin}/api/instances/example/calls`, {
        method: "POST",
        headers: { authorization: `Bearer ${operator}`, "content-type": "application/json" },
        body: JSON.stringify({ tool: "hello:greet", input: { name: "Ada", excited: null } }),
      });
      let pending: { id: string; toolName: string }[] = [];
      for (let i = 0; i < 100 && pending.length === 0; i++) {
        const list = await ok("airlock", ["approvals", "list", "--json"], { cwd: work, env });
        expect(list.stderr).toContain(`airlock: host at ${admin}`);
        pending = JSON.parse(list.stdout);
        if (pending.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(pending).toHaveLength(1);
      expect(pending[0]?.toolName).toBe("hello:greet");
      const approved = await ok("airlock", ["approvals", "approve", pending[0]?.id as string], {
        cwd: work,
        env,
      });
      expect(approved.stdout).toBe(`Approved ${pending[0]?.id}.\n`);
      const outcome = (await (await call).json()) as { content?: { text: string }[] };
      expect(JSON.stringify(outcome)).toContain("Hello, Ada.");
      const again = await cli("airlock", ["approvals", "deny", pending[0]?.id as string], { cwd: work, env });
      expect(again.status).toBe(1);
      oneError(again, /AIRLOCK_APPROVAL_ALREADY_DECIDED: approval "apr_[^"]+" was already approved/);
      const unknown = await cli("airlock", ["approvals", "deny", "apr_not-a-real-one"], { cwd: work, env });
      expect(unknown.status).toBe(1);
      oneError(unknown, /AIRLOCK_API_UNKNOWN_APPROVAL: no pending approval has id/);

      const audit = await ok("airlock", ["audit", "--agent", "example", "--tool", "hello:greet", "--json"], {
        cwd: work,
        env,
      });
      const entries = audit.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { plugin: string; tool: string; kind: string; success: boolean });
      expect(entries.length).toBeGreaterThan(0);
      expect(entries.every((e) => e.plugin === "hello" && e.tool === "greet")).toBe(true);
      expect(entries.some((e) => e.kind === "tool" && e.success)).toBe(true);
      const table = await ok(
        "airlock",
        ["audit", "--agent", "example", "--kind", "tool", "--since", "1h", "--limit", "5"],
        {
          cwd: work,
          env,
        },
      );
      expect(table.stdout).toMatch(/ tool +call +example hello:greet {2}ok \d+ms\n/);
      const kind = await cli("airlock", ["audit", "--kind", "tol"], { cwd: work, env });
      expect(kind.status).toBe(2);
      oneError(kind, /did you mean "tool"\?/);
      const future = await ok("airlock", ["audit", "--since", "2999-01-01T00:00:00Z"], { cwd: work, env });
      expect(future.stdout).toBe("No audit entries match.\n");
      const since = await cli("airlock", ["audit", "--since", "yesterday"], { cwd: work, env });
      expect(since.status).toBe(2);
      oneError(since, /--since takes an ISO time or an age such as 10m/);
      for (let i = 0; i < 100 && !follow.output().slice(before).includes('"tool":"greet"'); i++)
        await new Promise((r) => setTimeout(r, 100));
      await follow.stop();
      const followed = follow
        .output()
        .slice(before)
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { tool: string; kind: string });
      expect(followed.some((e) => e.tool === "greet" && e.kind === "tool")).toBe(true);

      const tokens = await ok("airlock", ["tokens", "list"], { cwd: work, env });
      expect(tokens.stderr).toContain(`airlock: host at ${admin}`);
      expect(tokens.stdout).toMatch(/tok_\S+\s+operator/);
      const revoke = await cli("airlock", ["tokens", "revoke", "tok_nope"], { cwd: work, env });
      expect(revoke.status).toBe(1);
      oneError(revoke, /AIRLOCK_API_UNKNOWN_TOKEN: no token has id "tok_nope"/);
      // A real revocation through the running host is refused from the next request on.
      const issued = await ok(
        "airlock",
        ["tokens", "create", "--role", "agent", "--agent", "example", "--json"],
        {
          cwd: work,
          env,
        },
      );
      const fresh = JSON.parse(issued.stdout) as { id: string; token: string };
      const withFresh = () =>
        fetch(`${admin}/api/agents/example/tools`, { headers: { authorization: `Bearer ${fresh.token}` } });
      expect((await withFresh()).status).toBe(200);
      const revoked = await ok("airlock", ["tokens", "revoke", fresh.id], { cwd: work, env });
      expect(revoked.stderr).toContain(`airlock: host at ${admin}`);
      expect(revoked.stdout).toBe(`Token ${fresh.id} revoked.\n`);
      expect((await withFresh()).status).toBe(401);

      const missing = await cli("airlock", ["agents", "delete", "nope", "--yes"], { cwd: work, env });
      expect(missing.status).toBe(1);
      oneError(missing, /AIRLOCK_CLI_UNKNOWN_AGENT: no agent "nope"/);
      const created = await ok("airlock", ["agents", "create", "scratch"], { cwd: work, env });
      expect(created.stderr).toContain(`airlock: host at ${admin}`);
      const agentToken = /Agent token: (\S+)/.exec(created.stdout)?.[1] as string;
      const tools = await fetch(`${admin}/api/instances/scratch/tools`, {
        headers: { authorization: `Bearer ${agentToken}` },
      });
      expect(tools.status).toBe(200);
      const unconfirmed = await cli("airlock", ["agents", "delete", "scratch"], { cwd: work, env });
      expect(unconfirmed.status).toBe(2);
      oneError(unconfirmed, /deleting agent scratch removes 1 token\(s\).* — pass --yes to delete it$/);
      const deleted = await ok("airlock", ["agents", "delete", "scratch", "--yes"], { cwd: work, env });
      expect(deleted.stdout).toContain("Agent scratch deleted");
      const list = await ok("airlock", ["agents", "list", "--json"], { cwd: work, env });
      expect((JSON.parse(list.stdout) as { slug: string }[]).map((a) => a.slug)).toEqual(["example"]);
    } finally {
      await host.stop();
    }
  }, 120_000);
});
