// Contract of one `airlock` CLI command. host/src/surfaces/cli/main.ts dispatches argv to commands;
// every command documents itself for `--help` and returns its exit status.
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export interface CliCommand {
  /** The words that select it: ["install"], ["plugins", "list"], ["registry", "serve"]. */
  readonly path: readonly string[];
  /** One line for the command list. */
  readonly summary: string;
  /** The full `--help` text: usage, options (with defaults), an example. */
  readonly help: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}
