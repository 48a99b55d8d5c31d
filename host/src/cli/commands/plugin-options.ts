// Options shared by `airlock install` and `airlock plugins …`: the host options plus the
// installer's trust roots — `<data-dir>/trust/*.pub` always, and each `--trust-key FILE`.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ParseArgsOptionsConfig } from "node:util";
import type { HostOptions } from "../../config.ts";
import { listOption, type Parsed } from "../args.ts";
import { cliError } from "../errors.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP, hostOptionsFrom } from "../open-host.ts";
import type { CliIO } from "../types.ts";

export const PLUGIN_OPTIONS = {
  ...HOST_OPTIONS,
  "trust-key": { type: "string", multiple: true },
  json: { type: "boolean" },
} as const satisfies ParseArgsOptionsConfig;

export const PLUGIN_OPTIONS_HELP = `${HOST_OPTIONS_HELP}
  --trust-key FILE   An ed25519 public key (PEM) whose signatures are trusted; repeatable.
                     Always trusted too: every <data-dir>/trust/*.pub
  --json             Print JSON.`;

export function pluginHostOptions(parsed: Parsed, io: CliIO): HostOptions {
  const options = hostOptionsFrom(parsed, io, "in-process");
  const keys = listOption(parsed, "trust-key").map((file) => {
    const path = resolve(io.cwd, file);
    try {
      return readFileSync(path, "utf8");
    } catch (err) {
      throw cliError(
        "AIRLOCK_CLI_USAGE",
        `--trust-key ${file}: cannot read ${path} (${(err as Error).message})`,
      );
    }
  });
  options.trust = { keys, keysDir: join(options.dataDir ?? ".airlock-data", "trust") };
  return options;
}

/** The installer's operator decisions, shared by `airlock install` and `airlock plugins upgrade`. */
export const INSTALL_DECISION_OPTIONS = {
  "allow-unsigned": { type: "boolean" },
  "allow-downgrade": { type: "boolean" },
  "allow-prerelease": { type: "boolean" },
} as const satisfies ParseArgsOptionsConfig;

export function installDecisionsHelp(what: string): string {
  return `  --allow-unsigned   Accept an unsigned package or an unknown signer for this ${what}.
  --allow-downgrade  Accept a version lower than the active one, or of the same precedence
                     (other build metadata). Without it such a version is refused
                     (AIRLOCK_INSTALL_DOWNGRADE); \`airlock plugins rollback\` is the step back.
  --allow-prerelease Accept a prerelease no range asked for (a .tgz, or a \`latest\` tag
                     pointing at one; AIRLOCK_INSTALL_PRERELEASE otherwise).`;
}

export function installDecisions(parsed: Parsed): {
  allowUnsigned: boolean;
  allowDowngrade: boolean;
  allowPrerelease: boolean;
} {
  return {
    allowUnsigned: parsed.values["allow-unsigned"] === true,
    allowDowngrade: parsed.values["allow-downgrade"] === true,
    allowPrerelease: parsed.values["allow-prerelease"] === true,
  };
}

export function printJsonOr(io: CliIO, parsed: Parsed, value: unknown, text: () => string): void {
  io.stdout(parsed.values.json === true ? `${JSON.stringify(value, null, 2)}\n` : text());
}
