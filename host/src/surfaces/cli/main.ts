// The `airlock` CLI: its commands (commands/index.ts) run on the dispatcher all three Airlock
// CLIs share (@airlock/sdk/cli-kit): the command list for `airlock --help`, a group's short
// list for `airlock agents`, a command's own `help` for `--help`/-h, "did you mean" for a
// mistyped command or option, and failures as one line `error: AIRLOCK_…: what — what to do`.
// Invariants: exit 0 done, 1 the operation failed, 2 wrong usage (docs/cli.md); no stack
// unless AIRLOCK_DEBUG=1.
import { type Program, runProgram } from "@airlock/sdk/cli-kit";
import { SDK_VERSION } from "@airlock/sdk/manifest";
import type { CliCommand, CliIO } from "./types.ts";

/** The `airlock` program over `commands`. */
export function airlockProgram(commands: readonly CliCommand[]): Program<CliIO> {
  return {
    name: "airlock",
    version: SDK_VERSION,
    about: "run, install and operate Airlock plugins and agents",
    commands,
    codes: { usage: "AIRLOCK_CLI_USAGE", unknownCommand: "AIRLOCK_CLI_UNKNOWN_COMMAND" },
  };
}

export async function runCli(
  argv: readonly string[],
  io: CliIO,
  only?: readonly CliCommand[],
): Promise<number> {
  // Loaded here, not at module load, so an entry that needs one command loads only that one.
  const commands = only ?? (await import("./commands/index.ts")).COMMANDS;
  return runProgram(airlockProgram(commands), argv, io);
}

/**
 * The process entry point (host/bin/airlock.ts). `airlock mcp`, which MCP clients spawn on every
 * connect, loads only its own command (a faster start); everything else loads the whole list.
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<never> {
  const io: CliIO = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  };
  const only = argv[0] === "mcp" ? [(await import("./commands/mcp.ts")).mcpCommand] : undefined;
  const code = await runCli(argv, io, only);
  process.exit(code);
}
