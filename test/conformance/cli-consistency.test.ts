// One voice across the three CLIs (airlock, airlock-plugin, airlock-registry): every command is
// walked with --help, a mistyped command word, a mistyped option and (where it takes one) a
// missing argument, and every group without a subcommand; each answer must have the shared form
// (@airlock/sdk/cli-kit): help on stdout with exit 0, or exactly one stderr line
// `error: AIRLOCK_…: what — what to do` with exit 2 that names the nearest command or option
// or the command's usage line. docs/cli.md must name every command.
// Runs in-process through each CLI's entry function (the same code the bin files call).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { COMMANDS as AIRLOCK_COMMANDS } from "../../host/src/surfaces/cli/commands/index.ts";
import { runCli } from "../../host/src/surfaces/cli/main.ts";
import { runRegistryCli } from "../../registry/src/cli.ts";
import { COMMANDS as PLUGIN_COMMANDS, main as pluginMain } from "../../sdk/src/cli/main.ts";

const work = mkdtempSync(join(tmpdir(), "airlock-cli-consistency-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Run {
  code: number;
  out: string;
  err: string;
}

type Runner = (argv: readonly string[]) => Promise<Run>;

function capture(run: (argv: readonly string[], io: never) => Promise<number>): Runner {
  return async (argv) => {
    let out = "";
    let err = "";
    const io = {
      stdout: (t: string) => {
        out += t;
      },
      stderr: (t: string) => {
        err += t;
      },
      env: {
        HOME: join(work, "home"),
        AIRLOCK_DATA_DIR: join(work, "data"),
        AIRLOCK_REGISTRY_DIR: join(work, "registry"),
        AIRLOCK_SANDBOX: "in-process",
      },
      cwd: work,
    };
    const code = await run(argv, io as never);
    return { code, out, err };
  };
}

interface Cli {
  name: string;
  run: Runner;
  commands: { path: readonly string[]; help: string }[];
}

const REGISTRY_PATHS = [["serve"], ["token", "create"]];

const CLIS: Cli[] = [
  { name: "airlock", run: capture(runCli as never), commands: AIRLOCK_COMMANDS },
  {
    name: "airlock-plugin",
    run: capture(pluginMain as never),
    commands: [...PLUGIN_COMMANDS.values()].map((c) => ({ path: [c.name], help: c.help })),
  },
  { name: "airlock-registry", run: capture(runRegistryCli as never), commands: [] },
];

/** The one error line of a failure (commands that act on a host first say which, on stderr). */
function theErrorLine(r: Run): string {
  const lines = r.err.split("\n").filter((l) => l !== "" && !l.startsWith("airlock: "));
  expect(lines, r.err).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: AIRLOCK_[A-Z]+(_[A-Z]+)+: \S/);
  return lines[0] as string;
}

const cliList = CLIS.map((c) => [c.name, c] as const);

describe.each(cliList)("%s", (name, cli) => {
  it("answers --help for every command on stdout with exit 0", async () => {
    if (cli.commands.length === 0) {
      for (const path of REGISTRY_PATHS)
        cli.commands.push({ path, help: (await cli.run([...path, "--help"])).out });
    }
    for (const command of cli.commands) {
      const r = await cli.run([...command.path, "--help"]);
      expect(r.code, command.path.join(" ")).toBe(0);
      expect(r.err).toBe("");
      expect(r.out).toContain(`Usage: ${name} ${command.path.join(" ")}`);
    }
    const top = await cli.run(["--help"]);
    expect(top.code).toBe(0);
    expect(top.out).toContain("Exit status: 0 done; 1 the operation failed; 2 wrong usage");
  });

  it("answers a mistyped command word with one line naming the command, exit 2", async () => {
    const paths = cli.commands.length > 0 ? cli.commands.map((c) => c.path) : REGISTRY_PATHS;
    for (const path of paths) {
      const last = path[path.length - 1] as string;
      const typo = [...path.slice(0, -1), `${last}${last.at(-1)}`];
      const r = await cli.run(typo);
      expect(r.code, typo.join(" ")).toBe(2);
      expect(r.out).toBe("");
      expect(theErrorLine(r)).toMatch(/_UNKNOWN_COMMAND: no command `.*` — did you mean `(.*)`\?$/);
      expect(theErrorLine(r)).toContain(`did you mean \`${name} ${path.join(" ")}\`?`);
    }
  });

  it("answers a mistyped option with one line naming the option, exit 2", async () => {
    const paths = cli.commands.length > 0 ? cli.commands : REGISTRY_PATHS.map((path) => ({ path, help: "" }));
    for (const command of paths) {
      const help = command.help || (await cli.run([...command.path, "--help"])).out;
      // The options the help documents: on its option lines and its usage line.
      const lines = help.split("\n").filter((l) => /^\s+(-\w, )?--[a-z]/.test(l) || l.startsWith("Usage:"));
      const options = [...new Set(lines.flatMap((l) => l.match(/--[a-z][a-z-]{3,}/g) ?? []))].filter(
        (o) => o !== "--help",
      );
      const option = options.sort((a, b) => b.length - a.length)[0];
      if (option === undefined) continue;
      const typo = option.slice(0, -1);
      const r = await cli.run([...command.path, typo]);
      const where = `${command.path.join(" ")} ${typo}`;
      expect(r.code, where).toBe(2);
      expect(theErrorLine(r), where).toMatch(new RegExp(`_USAGE: unknown option ${typo} — did you mean --`));
    }
  });

  it("answers a missing argument with one line and the usage, exit 2", async () => {
    const paths = cli.commands.length > 0 ? cli.commands : REGISTRY_PATHS.map((path) => ({ path, help: "" }));
    let checked = 0;
    for (const command of paths) {
      const help = command.help || (await cli.run([...command.path, "--help"])).out;
      const usage = help.split("\n").find((l) => l.startsWith("Usage:")) ?? "";
      const after = usage.slice(`Usage: ${name} ${command.path.join(" ")}`.length).trim();
      // A required positional (<slug>), or a required option (--owner NAME) named first.
      if (!after.startsWith("<") && !/^--[a-z-]+ [A-Z<]/.test(after)) continue;
      const r = await cli.run(command.path);
      const where = command.path.join(" ");
      expect(r.code, where).toBe(2);
      expect(theErrorLine(r), where).toMatch(/_USAGE: (missing|.*needs|.*must).* — /);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("prints a group's short list for a group (or the CLI) without a subcommand: stderr and exit 2, stdout and 0 with --help", async () => {
    const paths = cli.commands.length > 0 ? cli.commands.map((c) => c.path) : REGISTRY_PATHS;
    // "" is the CLI itself: no command at all is a group without a subcommand too.
    const groups = new Set([
      "",
      ...paths
        .filter((p) => p.length > 1)
        .flatMap((p) => p.slice(0, -1).map((_, i) => p.slice(0, i + 1).join(" "))),
    ]);
    for (const group of groups) {
      const words = group === "" ? [] : group.split(" ");
      const bare = await cli.run(words);
      expect(bare.code, group).toBe(2);
      expect(bare.out).toBe("");
      const members = paths.filter((p) => words.every((w, i) => p[i] === w));
      for (const p of members) expect(bare.err).toContain(`${name} ${p.join(" ")}`);
      const help = await cli.run([...words, "--help"]);
      expect(help.code).toBe(0);
      expect(help.out).toBe(bare.err);
    }
  });

  it("is documented in docs/cli.md", () => {
    const doc = readFileSync(resolve(import.meta.dirname, "../../docs/cli.md"), "utf8");
    const paths = cli.commands.length > 0 ? cli.commands.map((c) => c.path) : REGISTRY_PATHS;
    for (const path of paths) {
      if (name !== "airlock") {
        expect(doc, `${name} ${path.join(" ")}`).toContain(`${name} ${path.join(" ")}`);
        continue;
      }
      const row = doc.split("\n").find((l) => new RegExp(`^\\| [^|]*\`airlock ${path[0]}[ \`]`).test(l));
      expect(row, `${name} ${path.join(" ")}`).toBeDefined();
      expect(row).toContain(path[path.length - 1]);
    }
  });
});
