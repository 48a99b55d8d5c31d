// The `airlock` CLI dispatcher: picks the command whose `path` is the longest prefix of argv,
// prints the command list for `airlock --help` (or a group's list for `airlock agents`), a
// command's own `help` for `--help`/-h anywhere after it, and maps failures to exit codes.
// Invariants: usage errors exit 2, other AirlockErrors exit 1 with `error: CODE: message`,
// unexpected failures exit 70 with their message only (no stack unless AIRLOCK_DEBUG=1).
import { hasCode } from "@airlock/sdk/errors";
import { SDK_VERSION } from "@airlock/sdk/manifest";
import type { CliCommand, CliIO } from "./types.ts";

const HELP_FLAGS = new Set(["--help", "-h"]);

function pad(text: string, width: number): string {
  return text + " ".repeat(Math.max(1, width - text.length));
}

/** The command list, optionally only the commands under `prefix`. */
export function commandList(commands: readonly CliCommand[], prefix: readonly string[] = []): string {
  const shown = commands.filter((c) => prefix.every((word, i) => c.path[i] === word));
  const width = Math.max(...shown.map((c) => c.path.join(" ").length)) + 3;
  const lines = shown.map((c) => `  airlock ${pad(c.path.join(" "), width)}${c.summary}`);
  return [
    `airlock ${SDK_VERSION}`,
    "",
    "Usage: airlock <command> [options]",
    "       airlock --version",
    "",
    "Commands:",
    ...lines,
    "",
    "Run `airlock <command> --help` for a command's options.",
    "",
  ].join("\n");
}

function findCommand(commands: readonly CliCommand[], words: readonly string[]): CliCommand | undefined {
  let best: CliCommand | undefined;
  for (const command of commands) {
    const matches = command.path.every((word, i) => words[i] === word);
    if (matches && command.path.length > (best?.path.length ?? 0)) best = command;
  }
  return best;
}

export async function runCli(
  argv: readonly string[],
  io: CliIO,
  only?: readonly CliCommand[],
): Promise<number> {
  // Loaded here, not at module load, so an entry that needs one command loads only that one.
  const commands = only ?? (await import("./commands/index.ts")).COMMANDS;
  const first = argv[0];
  if (first === undefined || HELP_FLAGS.has(first) || first === "help") {
    (first === undefined ? io.stderr : io.stdout)(commandList(commands));
    return first === undefined ? 2 : 0;
  }
  if (first === "--version" || first === "-v") {
    io.stdout(`${SDK_VERSION}\n`);
    return 0;
  }
  const command = findCommand(commands, argv);
  if (command === undefined) {
    const words = argv.filter((a) => !a.startsWith("-"));
    const group = commands.some((c) => c.path[0] === words[0]) ? [words[0] as string] : undefined;
    if (group !== undefined) {
      const wantsHelp = argv.some((a) => HELP_FLAGS.has(a));
      if (!wantsHelp)
        io.stderr(`error: AIRLOCK_CLI_UNKNOWN_COMMAND: no such command: airlock ${words.join(" ")}\n\n`);
      (wantsHelp ? io.stdout : io.stderr)(commandList(commands, group));
      return wantsHelp ? 0 : 2;
    }
    io.stderr(`error: AIRLOCK_CLI_UNKNOWN_COMMAND: unknown command ${JSON.stringify(first)}\n\n`);
    io.stderr(commandList(commands));
    return 2;
  }
  const rest = argv.slice(command.path.length);
  if (rest.some((a) => HELP_FLAGS.has(a))) {
    io.stdout(command.help.endsWith("\n") ? command.help : `${command.help}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    return reportFailure(error, io);
  }
}

function reportFailure(error: unknown, io: CliIO): number {
  if (hasCode(error) && error.code.startsWith("AIRLOCK_")) {
    io.stderr(`error: ${error.code}: ${error.message}\n`);
    if (error.code === "AIRLOCK_CLI_USAGE") {
      io.stderr("Run the command with --help for its usage.\n");
      return 2;
    }
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`error: unexpected failure: ${message}\n`);
  if (io.env.AIRLOCK_DEBUG === "1" && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return 70;
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
