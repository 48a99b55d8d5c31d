// `airlock install mcp+https://… --namespace <ns>` and `airlock remote list | status | review |
// read-only`: remote MCP servers installed as plugins, each a thin layer over host.remote (the
// library API; a running host through its admin API).
import type { ParseArgsOptionsConfig } from "node:util";
import type { RemoteInstallOptions, RemoteStatus } from "../../../contracts/remote.ts";
import { listOption, type Parsed, parseOptions, requiredPositional, stringOption } from "../args.ts";
import { cliError } from "../errors.ts";
import type { CliCommand, CliIO } from "../types.ts";
import { PLUGIN_OPTIONS, PLUGIN_OPTIONS_HELP, printJsonOr, withPluginHost } from "./plugin-options.ts";

export const REMOTE_INSTALL_OPTIONS = {
  namespace: { type: "string" },
  "allow-private": { type: "string", multiple: true },
  header: { type: "string" },
  "as-agent": { type: "string" },
  "oauth-provider": { type: "string" },
  "oauth-authorization-url": { type: "string" },
  "oauth-token-url": { type: "string" },
  "oauth-revocation-url": { type: "string" },
  "oauth-scope": { type: "string", multiple: true },
  arg: { type: "string", multiple: true },
  "allow-command": { type: "string" },
} as const satisfies ParseArgsOptionsConfig;

export const REMOTE_INSTALL_HELP = `  --namespace NS     (mcp+ specs) The namespace its tools are listed under (NS:<tool>).
  --allow-private A  (mcp+ specs) A private/loopback address, CIDR or host name the server may
                     be on (as ctx.fetch's allowPrivate); repeatable. Needed for mcp+http://.
  --header N=KEY     (mcp+ specs) Send header N with every request, its value the calling
                     agent's secret KEY (e.g. Authorization=remote_token). The tools then
                     require that secret.
  --as-agent SLUG    (mcp+ specs) List the tools now with that agent's header secret (or
                     OAuth connection).
  --oauth-provider P (mcp+ specs) OAuth through the host's broker instead of --header, with
                     --oauth-authorization-url U, --oauth-token-url U, optional
                     --oauth-revocation-url U and --oauth-scope S (repeatable). The server's
                     host is the provider's only API host. A server that answers 401 until an
                     agent connects is installed with no tools pinned: set the agent's secrets
                     P_oauth_client_id (and P_oauth_client_secret), connect it
                     (airlock oauth link SLUG NS P), then airlock remote review NS --as-agent SLUG.
  --allow-command C  (mcp+stdio:C specs) The operator's allowance to start the command C (the
                     exact command of the spec); without it an mcp+stdio: install is refused.
                     The process is not sandboxed: it runs as the host's user, with only HOME,
                     LOGNAME, PATH, SHELL, TERM and USER of the environment, in an empty
                     temporary directory; it ends when its session closes, the plugin is
                     uninstalled or the host stops.
  --arg A            (mcp+stdio: specs) An argument of the command; repeatable, in order
                     (--arg=-x for one that starts with -).`;

function remoteInstallOptions(parsed: Parsed): RemoteInstallOptions {
  const namespace = stringOption(parsed, "namespace");
  if (namespace === undefined) throw cliError("AIRLOCK_CLI_USAGE", "an mcp+ install needs --namespace <ns>");
  const options: RemoteInstallOptions = { namespace };
  const allow = listOption(parsed, "allow-private");
  if (allow.length > 0) options.allowPrivate = allow;
  const header = stringOption(parsed, "header");
  if (header !== undefined) {
    const at = header.indexOf("=");
    if (at <= 0)
      throw cliError("AIRLOCK_CLI_USAGE", "--header takes NAME=SECRET_KEY (e.g. Authorization=remote_token)");
    options.header = { name: header.slice(0, at), secret: header.slice(at + 1) };
  }
  const asAgent = stringOption(parsed, "as-agent");
  if (asAgent !== undefined) options.asAgent = asAgent;
  const args = listOption(parsed, "arg");
  if (args.length > 0) options.args = args;
  const allowCommand = stringOption(parsed, "allow-command");
  if (allowCommand !== undefined) options.allowCommand = allowCommand;
  const provider = stringOption(parsed, "oauth-provider");
  const authorizationUrl = stringOption(parsed, "oauth-authorization-url");
  const tokenUrl = stringOption(parsed, "oauth-token-url");
  const revocationUrl = stringOption(parsed, "oauth-revocation-url");
  const scopes = listOption(parsed, "oauth-scope");
  if (provider !== undefined || authorizationUrl !== undefined || tokenUrl !== undefined) {
    if (provider === undefined || authorizationUrl === undefined || tokenUrl === undefined) {
      throw cliError(
        "AIRLOCK_CLI_USAGE",
        "OAuth needs --oauth-provider, --oauth-authorization-url and --oauth-token-url together",
      );
    }
    options.oauth = {
      provider,
      authorizationUrl,
      tokenUrl,
      scopes,
      ...(revocationUrl === undefined ? {} : { revocationUrl }),
    };
  }
  return options;
}

/** `airlock install mcp+…`: called by the install command for specs starting with `mcp+`. */
export async function installRemote(spec: string, parsed: Parsed, io: CliIO): Promise<number> {
  const options = remoteInstallOptions(parsed);
  const report = await withPluginHost(parsed, io, (host) => host.remote.install(spec, options));
  printJsonOr(io, parsed, report, () =>
    [
      `Installed remote MCP server ${spec} as ${report.namespace}@${report.version}`,
      `  tools:  ${report.tools.join(", ") || "(none)"}`,
      "  Every tool asks for approval until you mark it read-only (airlock remote read-only).",
      "",
    ].join("\n"),
  );
  return 0;
}

function describeStatus(status: RemoteStatus): string {
  const lines = [`${status.namespace}@${status.version} (revision ${status.revision}) ${status.url}`];
  for (const t of status.tools) {
    lines.push(
      `  ${t.id}  ${t.readOnly ? "read-only" : "asks approval"}${t.refused ? "  REFUSED (changed on the server)" : ""}  ${t.hash.slice(0, 12)}`,
    );
  }
  if (status.changes.length === 0) lines.push("No changes: the server lists the pinned definitions.");
  for (const c of status.changes) {
    lines.push(`  ${c.kind} ${c.tool} (${c.remoteName})  listed ${c.listedHash ?? "-"}`);
    if (c.pinnedDescription !== null) lines.push(`    pinned: ${c.pinnedDescription}`);
    if (c.listedDescription !== null) lines.push(`    listed: ${c.listedDescription}`);
  }
  return `${lines.join("\n")}\n`;
}

const AS_AGENT = { "as-agent": { type: "string" } } as const satisfies ParseArgsOptionsConfig;

const listCommand: CliCommand = {
  path: ["remote", "list"],
  summary: "List remote MCP servers installed as plugins",
  help: `Usage: airlock remote list [options]

Lists each remote MCP server: namespace, revision, URL and its pinned tools (read-only mark,
refused when the server changed the definition).

Options:
${PLUGIN_OPTIONS_HELP}

Example:
  airlock remote list --json
`,
  async run(args, io) {
    const parsed = parseOptions(args, PLUGIN_OPTIONS);
    const servers = await withPluginHost(parsed, io, (host) => host.remote.list());
    printJsonOr(io, parsed, servers, () =>
      servers.length === 0
        ? "No remote MCP servers installed.\n"
        : servers
            .map((s) =>
              describeStatus({ ...s, changes: [] })
                .split("\n")
                .slice(0, -2)
                .join("\n"),
            )
            .join("\n") + "\n",
    );
    return 0;
  },
};

const statusCommand: CliCommand = {
  path: ["remote", "status"],
  summary: "List a remote MCP server now and show what changed against its pins",
  help: `Usage: airlock remote status <namespace> [--as-agent SLUG] [options]

Lists the server's tools now and compares each definition (name, description, schemas) with
the one pinned when it was installed or last reviewed: changed, added, removed. A changed or
removed tool is not served until reviewed (airlock remote review).

Options:
  --as-agent SLUG    List with that agent's header secret.
${PLUGIN_OPTIONS_HELP}

Example:
  airlock remote status example
`,
  async run(args, io) {
    const parsed = parseOptions(args, { ...PLUGIN_OPTIONS, ...AS_AGENT }, 1);
    const ns = requiredPositional(parsed, 0, "<namespace>");
    const asAgent = stringOption(parsed, "as-agent");
    const status = await withPluginHost(parsed, io, (host) =>
      host.remote.status(ns, asAgent === undefined ? {} : { asAgent }),
    );
    printJsonOr(io, parsed, status, () => describeStatus(status));
    return 0;
  },
};

const reviewCommand: CliCommand = {
  path: ["remote", "review"],
  summary: "Accept what a remote MCP server lists now (pins the changed definitions)",
  help: `Usage: airlock remote review <namespace> [--expect TOOL=HASH ...] [--as-agent SLUG] [options]

Pins the definitions the server lists now as a new revision: changed tools are served again,
added tools become available to enable, removed ones leave the catalogue. With --expect
(the listed hashes \`airlock remote status\` printed, \`TOOL=-\` for a removal) the review is
refused (AIRLOCK_REMOTE_DEFINITION_CHANGED) if the server now lists anything else.

Options:
  --expect TOOL=HASH The listed hash you reviewed; repeatable.
  --as-agent SLUG    List with that agent's header secret.
${PLUGIN_OPTIONS_HELP}

Example:
  airlock remote review example --expect search=<listed hash from airlock remote status>
`,
  async run(args, io) {
    const parsed = parseOptions(
      args,
      { ...PLUGIN_OPTIONS, ...AS_AGENT, expect: { type: "string", multiple: true } },
      1,
    );
    const ns = requiredPositional(parsed, 0, "<namespace>");
    const expected = listOption(parsed, "expect");
    const options: { asAgent?: string; expect?: Record<string, string | null> } = {};
    const asAgent = stringOption(parsed, "as-agent");
    if (asAgent !== undefined) options.asAgent = asAgent;
    if (expected.length > 0) {
      options.expect = Object.fromEntries(
        expected.map((e) => {
          const at = e.indexOf("=");
          if (at <= 0) throw cliError("AIRLOCK_CLI_USAGE", `--expect ${e}: use TOOL=HASH`);
          const hash = e.slice(at + 1);
          return [e.slice(0, at), hash === "-" ? null : hash];
        }),
      );
    }
    const status = await withPluginHost(parsed, io, (host) => host.remote.review(ns, options));
    printJsonOr(
      io,
      parsed,
      status,
      () => `Reviewed ${status.changes.length} change(s).\n${describeStatus({ ...status, changes: [] })}`,
    );
    return 0;
  },
};

const readOnlyCommand: CliCommand = {
  path: ["remote", "read-only"],
  summary: "Mark a remote tool read-only (no approval) or not",
  help: `Usage: airlock remote read-only <namespace> <tool> [--off] [options]

The server's own readOnlyHint is never trusted: every remote tool asks for an operator's
approval until you mark it read-only here. --off removes the mark.

Options:
  --off              Remove the mark.
${PLUGIN_OPTIONS_HELP}

Example:
  airlock remote read-only example search
`,
  async run(args, io) {
    const parsed = parseOptions(args, { ...PLUGIN_OPTIONS, off: { type: "boolean" } }, 2);
    const ns = requiredPositional(parsed, 0, "<namespace>");
    const tool = requiredPositional(parsed, 1, "<tool>");
    const view = await withPluginHost(parsed, io, (host) =>
      host.remote.setReadOnly(ns, tool, parsed.values.off !== true),
    );
    printJsonOr(
      io,
      parsed,
      view,
      () => `${view.id} ${view.readOnly ? "is read-only" : "asks for approval"}.\n`,
    );
    return 0;
  },
};

export const remoteCommands: CliCommand[] = [listCommand, statusCommand, reviewCommand, readOnlyCommand];
