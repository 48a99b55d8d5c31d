// The `airlock-plugin` dispatcher. COMMANDS is the dispatch table: a new command (`dev`,
// `test`) is one file exporting a PluginCliCommand plus one entry here. It runs on the
// dispatcher all three Airlock CLIs share (kit/program.ts): `--help` on every command, "did you
// mean" for a mistyped command or option, one-line errors, exit statuses EXIT (0 ok, 1 failed,
// 2 usage).
import { SDK_VERSION } from "../manifest.ts";
import { buildCommand } from "./build.ts";
import { checkCommand } from "./check.ts";
import { devCommand } from "./dev.ts";
import { initCommand } from "./init.ts";
import { keygenCommand } from "./keygen.ts";
import { commandList, type Program, runProgram } from "./kit/program.ts";
import { packCommand } from "./pack.ts";
import { publishCommand } from "./publish.ts";
import { signCommand } from "./sign.ts";
import { testCommand } from "./test.ts";
import type { CliIO, PluginCliCommand } from "./types.ts";

export const COMMANDS: ReadonlyMap<string, PluginCliCommand> = new Map(
  [
    initCommand,
    buildCommand,
    checkCommand,
    packCommand,
    keygenCommand,
    signCommand,
    publishCommand,
    devCommand,
    testCommand,
  ].map((c) => [c.name, c]),
);

function program(commands: ReadonlyMap<string, PluginCliCommand>): Program<CliIO> {
  return {
    name: "airlock-plugin",
    version: SDK_VERSION,
    about: "build, check, pack, sign and publish Airlock plugins",
    // Each command reads its own --help, after refusing an option it does not know.
    selfHelp: true,
    commands: [...commands.values()].map((c) => ({
      path: [c.name],
      summary: c.summary,
      help: c.help,
      run: (args, io) => c.run(args, io),
    })),
    codes: { usage: "AIRLOCK_SDK_USAGE", unknownCommand: "AIRLOCK_SDK_UNKNOWN_COMMAND" },
  };
}

/** The command list of `airlock-plugin --help`. */
export function usage(commands: ReadonlyMap<string, PluginCliCommand> = COMMANDS): string {
  return commandList(program(commands));
}

export function main(
  argv: readonly string[],
  io: CliIO,
  commands: ReadonlyMap<string, PluginCliCommand> = COMMANDS,
): Promise<number> {
  return runProgram(program(commands), argv, io);
}
