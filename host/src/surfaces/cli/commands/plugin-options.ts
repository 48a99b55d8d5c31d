// Options shared by `airlock install` and `airlock plugins …`: the host options plus the
// installer's trust roots — `<data-dir>/trust/*.pub` always, and each `--trust-key FILE`.

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ParseArgsOptionsConfig } from "node:util";
import { didYouMean } from "@airlock/sdk/cli-kit";
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import type { HostOptions } from "../../../config.ts";
import type { CliHost } from "../admin-client.ts";
import { listOption, type Parsed } from "../args.ts";
import { cliError } from "../errors.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP, hostOptionsFrom } from "../open-host.ts";
import { resolveTarget, TARGET_OPTIONS, TARGET_OPTIONS_HELP, withCliHost } from "../target.ts";
import type { CliIO } from "../types.ts";

export const PLUGIN_OPTIONS = {
  ...HOST_OPTIONS,
  ...TARGET_OPTIONS,
  "trust-key": { type: "string", multiple: true },
  json: { type: "boolean" },
} as const satisfies ParseArgsOptionsConfig;

export const PLUGIN_OPTIONS_HELP = `${HOST_OPTIONS_HELP}
${TARGET_OPTIONS_HELP}
  --trust-key FILE   An ed25519 public key (PEM) trusted for this install; repeatable. The
                     key that signed it is kept for the namespace in the store (every
                     replica trusts it), so upgrades need no flag.
                     Always trusted too: every <data-dir>/trust/*.pub
  --json             Print JSON.`;

/** The `--trust-key` files' PEMs, trusted for this one operation (and kept for its namespace in the store). */
export function trustKeysOf(parsed: Parsed, io: CliIO): string[] {
  return listOption(parsed, "trust-key").map((file) => {
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
}

export function pluginHostOptions(parsed: Parsed, io: CliIO): HostOptions {
  const options = hostOptionsFrom(parsed, io, "in-process");
  options.trust = { keysDir: join(options.dataDir ?? ".airlock-data", "trust") };
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

/** Runs `body` on the target host (the running one through its admin API, else the data dir). */
export function withPluginHost<T>(
  parsed: Parsed,
  io: CliIO,
  body: (host: CliHost) => Promise<T>,
): Promise<T> {
  return withCliHost(resolveTarget(parsed, io), pluginHostOptions(parsed, io), io, body);
}

export function printJsonOr(io: CliIO, parsed: Parsed, value: unknown, text: () => string): void {
  io.stdout(parsed.values.json === true ? `${JSON.stringify(value, null, 2)}\n` : text());
}

/**
 * withPluginHost for a command on one installed plugin: AIRLOCK_INSTALL_NOT_INSTALLED names the
 * installed namespace the operator most likely meant ("did you mean"), else where to list them.
 */
export function withInstalledPlugin<T>(
  parsed: Parsed,
  io: CliIO,
  namespace: string,
  body: (host: CliHost) => Promise<T>,
): Promise<T> {
  return withPluginHost(parsed, io, async (host) => {
    try {
      return await body(host);
    } catch (error) {
      if (!hasCode(error, "AIRLOCK_INSTALL_NOT_INSTALLED")) throw error;
      // The hint is a nicety: a listing that fails leaves the plain "plugins list" pointer.
      const listed = await host.plugins.list().catch(() => []);
      const installed = Array.isArray(listed) ? listed.map((p) => p.namespace) : [];
      const hint = didYouMean(namespace, installed) || " — `airlock plugins list` shows what is installed";
      throw new AirlockError(error.code, `${error.message}${hint}`, {
        status: 404,
        cause: error,
      });
    }
  });
}
