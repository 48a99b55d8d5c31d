// The dispatcher every Airlock CLI runs on: a program is a list of commands, each selected by the
// words of its `path` (["start"], ["agents", "list"], ["token", "create"]). Contract of
// `runProgram(program, argv, io)`: answers the exit status and prints
//   - no argument: the command list on stderr, exit 2; `--help`/`help`: on stdout, exit 0;
//   - `--version`/`-v`: the version, exit 0;
//   - a group without a subcommand (`airlock agents`): the group's short list on stderr, exit 2
//     (on stdout and exit 0 with --help);
//   - an unknown command: ONE error line with the nearest command ("did you mean"), exit 2;
//   - a command with --help/-h before any `--`: its help on stdout, exit 0;
//   - otherwise the command's own status; a thrown error becomes the one error line
//     (report.ts), and a usage error also names the command's usage line.
import { AirlockError, hasCode } from "../../errors.ts";
import { EXIT, EXIT_STATUS_HELP, errorLine, isUsageCode, type ReportIO, reportFailure } from "./report.ts";
import { closest } from "./suggest.ts";

export interface ProgramIO extends ReportIO {
  stdout: (text: string) => void;
}

export interface ProgramCommand<IO extends ProgramIO> {
  /** The words that select it. */
  readonly path: readonly string[];
  /** One line for the command list. */
  readonly summary: string;
  /** The full --help text; its first line that starts with "Usage:" is quoted in usage errors. */
  readonly help: string;
  run(args: readonly string[], io: IO): Promise<number>;
}

export interface Program<IO extends ProgramIO> {
  /** The executable's name: airlock, airlock-plugin, airlock-registry. */
  readonly name: string;
  readonly version: string;
  /** One line under the name in the command list. */
  readonly about: string;
  readonly commands: readonly ProgramCommand<IO>[];
  /** The CLI's usage and unknown-command codes (e.g. AIRLOCK_CLI_USAGE, AIRLOCK_CLI_UNKNOWN_COMMAND). */
  readonly codes: { usage: string; unknownCommand: string };
  /** The commands read --help themselves (after refusing an unknown option); default false. */
  readonly selfHelp?: boolean;
}

const HELP_FLAGS = new Set(["--help", "-h"]);

/** The arguments before a `--` (what follows it belongs to the command, e.g. to vitest). */
function ownArgs(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  return end < 0 ? args : args.slice(0, end);
}

function startsWith(path: readonly string[], words: readonly string[]): boolean {
  return words.every((word, i) => path[i] === word);
}

/** The command list (every command, or the group's under `prefix`). */
export function commandList<IO extends ProgramIO>(
  program: Program<IO>,
  prefix: readonly string[] = [],
): string {
  const shown = program.commands.filter((c) => startsWith(c.path, prefix));
  const width = Math.max(...shown.map((c) => c.path.join(" ").length)) + 3;
  const lines = shown.map((c) => `  ${program.name} ${c.path.join(" ").padEnd(width)}${c.summary}`);
  const usage = prefix.length === 0 ? "<command>" : `${prefix.join(" ")} <subcommand>`;
  return [
    `${program.name} ${program.version} — ${program.about}`,
    "",
    `Usage: ${program.name} ${usage} [options]`,
    ...(prefix.length === 0 ? [`       ${program.name} --version`] : []),
    "",
    "Commands:",
    ...lines,
    "",
    `Run \`${program.name} <command> --help\` for a command's options.`,
    EXIT_STATUS_HELP,
    "",
  ].join("\n");
}

/** The command whose path is the longest prefix of the words of argv. */
function findCommand<IO extends ProgramIO>(program: Program<IO>, argv: readonly string[]) {
  let best: ProgramCommand<IO> | undefined;
  for (const command of program.commands) {
    if (startsWith(argv, command.path) && command.path.length > (best?.path.length ?? 0)) best = command;
  }
  return best;
}

/** The usage line of a command's help, for usage errors. */
export function usageLine(help: string): string | undefined {
  const line = help.split("\n").find((l) => l.startsWith("Usage:"));
  return line?.slice("Usage:".length).trim();
}

function unknownCommand<IO extends ProgramIO>(program: Program<IO>, argv: readonly string[]): AirlockError {
  const words = ownArgs(argv).filter((a) => !a.startsWith("-"));
  // The longest run of words that names a group; the next word is the unknown one.
  let depth = 0;
  while (depth < words.length && program.commands.some((c) => startsWith(c.path, words.slice(0, depth + 1))))
    depth++;
  const group = words.slice(0, depth);
  const typed = words[depth] ?? argv[0] ?? "";
  const choices = new Set(
    program.commands
      .filter((c) => startsWith(c.path, group) && c.path.length > depth)
      .map((c) => c.path[depth] as string),
  );
  const near = closest(typed, choices);
  const where = group.length === 0 ? `${program.name} --help` : `${program.name} ${group.join(" ")} --help`;
  const hint =
    near === undefined
      ? `${where} lists them`
      : `did you mean \`${[program.name, ...group, near].join(" ")}\`?`;
  const what = [program.name, ...group, typed].join(" ");
  return new AirlockError(program.codes.unknownCommand, `no command \`${what}\` — ${hint}`, { status: 404 });
}

/** A group's words when argv names a group but no subcommand (`airlock agents`, `airlock agents --json`). */
function groupOf<IO extends ProgramIO>(program: Program<IO>, argv: readonly string[]): string[] | undefined {
  const words: string[] = [];
  for (const arg of ownArgs(argv)) {
    if (arg.startsWith("-")) break;
    words.push(arg);
  }
  if (words.length === 0 || words.length !== ownArgs(argv).filter((a) => !a.startsWith("-")).length)
    return undefined;
  const isGroup = program.commands.some((c) => startsWith(c.path, words) && c.path.length > words.length);
  return isGroup ? words : undefined;
}

async function runCommand<IO extends ProgramIO>(
  program: Program<IO>,
  command: ProgramCommand<IO>,
  rest: readonly string[],
  io: IO,
): Promise<number> {
  if (program.selfHelp !== true && ownArgs(rest).some((a) => HELP_FLAGS.has(a))) {
    io.stdout(command.help.endsWith("\n") ? command.help : `${command.help}\n`);
    return EXIT.OK;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (hasCode(error) && isUsageCode(error.code) && !error.message.includes(" — ")) {
      const usage = usageLine(command.help);
      const help = `${program.name} ${command.path.join(" ")} --help`;
      io.stderr(
        errorLine(
          error.code,
          `${error.message} — ${usage === undefined ? `see ${help}` : `usage: ${usage}`}`,
        ),
      );
      return EXIT.USAGE;
    }
    return reportFailure(error, io);
  }
}

export async function runProgram<IO extends ProgramIO>(
  program: Program<IO>,
  argv: readonly string[],
  io: IO,
): Promise<number> {
  const first = argv[0];
  if (first === undefined) {
    io.stderr(commandList(program));
    return EXIT.USAGE;
  }
  if (HELP_FLAGS.has(first) || first === "help") {
    const topic = first === "help" && argv[1] !== undefined ? findCommand(program, argv.slice(1)) : undefined;
    io.stdout(topic === undefined ? commandList(program) : topic.help);
    return EXIT.OK;
  }
  if (first === "--version" || first === "-v") {
    io.stdout(`${program.version}\n`);
    return EXIT.OK;
  }
  const command = findCommand(program, argv);
  if (command !== undefined) return runCommand(program, command, argv.slice(command.path.length), io);
  const group = groupOf(program, argv);
  if (group !== undefined) {
    const wantsHelp = ownArgs(argv).some((a) => HELP_FLAGS.has(a));
    (wantsHelp ? io.stdout : io.stderr)(commandList(program, group));
    return wantsHelp ? EXIT.OK : EXIT.USAGE;
  }
  if (first.startsWith("-")) {
    return reportFailure(
      new AirlockError(
        program.codes.usage,
        `unknown option ${first.split("=")[0]} — ${program.name} --help lists the commands and options`,
        { status: 400 },
      ),
      io,
    );
  }
  return reportFailure(unknownCommand(program, argv), io);
}
