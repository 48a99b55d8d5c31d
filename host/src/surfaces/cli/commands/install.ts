// `airlock install <name>@<range> | <registry URL>/<name>@<range> | ./file.tgz`: resolves,
// verifies (integrity, signature against the trust roots, the tarball's contents, engine and
// SDK ranges) and installs a plugin into the data directory through the host's lifecycle.
import { resolve } from "node:path";
import { parseOptions, requiredPositional, stringOption } from "../args.ts";
import { cliError } from "../errors.ts";
import type { CliCommand } from "../types.ts";
import {
  INSTALL_DECISION_OPTIONS,
  installDecisions,
  installDecisionsHelp,
  PLUGIN_OPTIONS,
  PLUGIN_OPTIONS_HELP,
  printJsonOr,
  trustKeysOf,
  withPluginHost,
} from "./plugin-options.ts";
import { installRemote, REMOTE_INSTALL_HELP, REMOTE_INSTALL_OPTIONS } from "./remote.ts";

export const installCommand: CliCommand = {
  path: ["install"],
  summary:
    "Install a plugin from a registry (name@range), a .tgz file, or a remote MCP server (mcp+https://…)",
  help: `Usage: airlock install <name>@<range> | <registry-url>/<name>@<range> | ./plugin.tgz [options]
       airlock install mcp+https://host/path --namespace <ns> [--header N=KEY] [options]
       airlock install mcp+stdio:<command> --allow-command <command> [--arg A]... --namespace <ns>

Installs a plugin and makes it the active version of its namespace. Before anything is
written the installer checks the tarball's sha512 against the registry's, verifies its
ed25519 signature against the trust roots, reads the tarball in memory (refusing links,
traversal, unexpected files, oversized or bomb archives), and checks the manifest's engine
range against this host and its SDK version against the supported range. Files go to
<data-dir>/plugins/<namespace>/<version>/ through a staging directory and an atomic rename;
the previous version stays active until the new one is recorded (then \`airlock plugins
rollback\` returns to it). Versions only move forward: a version lower than the active one,
or of the same precedence, is refused unless --allow-downgrade. Ranges ignore prereleases
unless they name one (^1.2.0-beta.0); a prerelease .tgz needs --allow-prerelease.
A .tgz is signed by a sidecar <file>.tgz.sig ({"keyid","sig"}) when it has one.

An mcp+ spec installs a remote MCP server (streamable HTTP) as the plugin <ns>: its tools
are listed now, pinned (a hash of name, description and schemas) and served as <ns>:<tool>
through the same enablement, approvals, audit, limits and egress rules as any plugin's.
A server on this machine needs mcp+http://127.0.0.1:PORT/… with --allow-private 127.0.0.1.
An mcp+stdio:<command> spec has the host start that command and speak MCP over its stdio,
only when --allow-command names the same command (the process is not sandboxed).

Options:
${installDecisionsHelp("install")}
${REMOTE_INSTALL_HELP}
${PLUGIN_OPTIONS_HELP}

Examples:
  airlock install weather@^1.2.0 --registry http://127.0.0.1:4873
  airlock install ./weather-1.2.0.tgz --trust-key ./publisher.pub
  airlock install mcp+https://mcp.example.com/mcp --namespace example --header Authorization=example_token
`,
  async run(args, io) {
    const parsed = parseOptions(
      args,
      { ...PLUGIN_OPTIONS, ...INSTALL_DECISION_OPTIONS, ...REMOTE_INSTALL_OPTIONS },
      1,
    );
    const given = requiredPositional(parsed, 0, "<name>@<range> or a path to a .tgz");
    if (given.startsWith("mcp+")) return installRemote(given, parsed, io);
    for (const only of Object.keys(REMOTE_INSTALL_OPTIONS)) {
      if (parsed.values[only] !== undefined)
        throw cliError("AIRLOCK_CLI_USAGE", `--${only} applies to mcp+ specs only`);
    }
    // A file path is relative to the CLI's cwd (io.cwd), not the host process's.
    const isFile = !/^https?:\/\//.test(given) && (given.endsWith(".tgz") || /^\.{0,2}\//.test(given));
    // `--registry` travels in the spec (`<registry URL>/name@range`), so a running host asked
    // through its admin API installs from that registry, not from its own default.
    const registry = stringOption(parsed, "registry") ?? io.env.AIRLOCK_REGISTRY_URL;
    const isUrl = /^https?:\/\//.test(given);
    const spec = isFile
      ? resolve(io.cwd, given.replace(/^file:/, ""))
      : !isUrl && registry !== undefined
        ? `${registry.replace(/\/+$/, "")}/${given}`
        : given;
    const trustKeys = trustKeysOf(parsed, io);
    const report = await withPluginHost(parsed, io, (host) =>
      host.plugins.install(spec, { ...installDecisions(parsed), trustKeys }),
    );
    printJsonOr(io, parsed, report, () =>
      report.alreadyActive === true
        ? `${report.namespace}@${report.version} is already installed and active (same contents) — nothing changed\n`
        : [
            `Installed ${report.namespace}@${report.version}${report.previous === null ? "" : ` (previous: ${report.previous})`}`,
            `  signer: ${report.signer ?? "none (unsigned, allowed by the operator)"}`,
            `  tools:  ${report.tools.join(", ")}`,
            "",
          ].join("\n"),
    );
    return 0;
  },
};
