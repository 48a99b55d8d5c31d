// Contract of one `airlock-plugin` command. main.ts dispatches argv[0] through COMMANDS;
// every command documents itself for `--help` and returns its exit status (see EXIT).
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export interface PluginCliCommand {
  /** The word that selects it: "build", "pack", ... */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full `--help` text: usage, arguments, options with defaults, an example. */
  readonly help: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/** Exit statuses of every command: the ones all three Airlock CLIs share (kit/report.ts). */
export { EXIT } from "./kit/report.ts";
