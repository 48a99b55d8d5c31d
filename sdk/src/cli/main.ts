// The `airlock-plugin` dispatcher. COMMANDS is the dispatch table: a new command (`dev`,
// `test`) is one file exporting a PluginCliCommand plus one entry here. `--help` works on
// every command; exit statuses are EXIT (0 ok, 1 failed, 2 usage).
import { SDK_VERSION } from "../manifest.ts";
import { buildCommand } from "./build.ts";
import { checkCommand } from "./check.ts";
import { devCommand } from "./dev.ts";
import { initCommand } from "./init.ts";
import { keygenCommand } from "./keygen.ts";
import { packCommand } from "./pack.ts";
import { publishCommand } from "./publish.ts";
import { testCommand } from "./test.ts";
import { type CliIO, EXIT, type PluginCliCommand } from "./types.ts";

export const COMMANDS: ReadonlyMap<string, PluginCliCommand> = new Map(
  [
    initCommand,
    buildCommand,
    checkCommand,
    packCommand,
    keygenCommand,
    publishCommand,
    devCommand,
    testCommand,
  ].map((c) => [c.name, c]),
);

export function usage(commands: ReadonlyMap<string, PluginCliCommand> = COMMANDS): string {
  const width = Math.max(...[...commands.keys()].map((k) => k.length));
  const lines = [...commands.values()].map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `airlock-plugin ${SDK_VERSION} — build, check, pack and publish Airlock plugins

Usage: airlock-plugin <command> [options]

Commands:
${lines.join("\n")}

Run \`airlock-plugin <command> --help\` for a command's options.
Exit status: 0 success; 1 the command failed (build error, lint violation, registry
refusal); 2 wrong usage (unknown command or option, missing argument).
`;
}

export async function main(
  argv: readonly string[],
  io: CliIO,
  commands: ReadonlyMap<string, PluginCliCommand> = COMMANDS,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    const topic = name === "help" && rest[0] !== undefined ? commands.get(rest[0]) : undefined;
    io.stdout(topic ? topic.help : usage(commands));
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (name === "--version" || name === "-v") {
    io.stdout(`${SDK_VERSION}\n`);
    return EXIT.OK;
  }
  const command = commands.get(name);
  if (!command) {
    io.stderr(`error AIRLOCK_SDK_USAGE: unknown command "${name}"\n\n${usage(commands)}`);
    return EXIT.USAGE;
  }
  return command.run(rest, io);
}
