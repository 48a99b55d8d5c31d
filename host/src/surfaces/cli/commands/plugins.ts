// `airlock plugins list | keys | upgrade | rollback | uninstall | worker`: the installed-plugin
// lifecycle of a data directory, each a thin layer over host.plugins (the library API), and
// the plugin's sandbox worker tier (host.setPluginWorker).
import type { InstalledPluginView } from "../../../contracts/host.ts";
import { parseOptions, requiredPositional } from "../args.ts";
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
  withInstalledPlugin,
  withPluginHost,
} from "./plugin-options.ts";

const listCommand: CliCommand = {
  path: ["plugins", "list"],
  summary: "List installed plugins with their active and previous versions",
  help: `Usage: airlock plugins list [options]

Lists every installed plugin: namespace, active version, the previous version a rollback
returns to, the signer's key id and where it came from, and — for a plugin that runs in a
sandbox worker of its own — why (an operator's choice, or a quarantine after its isolate
aborted a shared worker).

Options:
${PLUGIN_OPTIONS_HELP}

Example:
  airlock plugins list --json
`,
  async run(args, io) {
    const parsed = parseOptions(args, PLUGIN_OPTIONS);
    const plugins = await withPluginHost(parsed, io, (host) => host.plugins.list());
    printJsonOr(io, parsed, plugins, () =>
      plugins.length === 0
        ? "No plugins installed.\n"
        : `${plugins
            .map(
              (p) =>
                `${p.namespace}@${p.active}${p.previous === null ? "" : ` (previous ${p.previous})`}  ${p.tools.length} tool(s)  signer ${p.signer ?? "none"}  from ${p.source}${workerNote(p)}`,
            )
            .join("\n")}\n`,
    );
    return 0;
  },
};

function workerNote(p: InstalledPluginView): string {
  if (p.worker?.tier !== "own") return "";
  if (p.worker.reason === "quarantine")
    return `  QUARANTINED: own worker since ${p.worker.since} (its isolate aborted a shared worker; \`airlock plugins worker ${p.namespace} shared\` to undo)`;
  if (p.worker.reason === "cpu_limit")
    return `  own low-priority worker since ${p.worker.since} (its calls were ended by their CPU limit; until the host restarts, or \`airlock plugins worker ${p.namespace} shared\`)`;
  return "  own worker";
}

const workerCommand: CliCommand = {
  path: ["plugins", "worker"],
  summary: "Give a plugin a sandbox worker of its own, or put it back in the shared pool",
  help: `Usage: airlock plugins worker <namespace> <own|shared> [options]

Trust tiers of the workers sandbox. \`own\`: the plugin's versions run in a worker process
of their own, so a crash of its isolate (a V8 abort) fails only its own calls. \`shared\`:
back in the pool of shared workers (the default); this also ends a quarantine — a plugin
whose isolate aborted a shared worker is moved into its own worker automatically, and
\`airlock plugins list\` shows it as QUARANTINED — and a CPU move: a plugin whose calls
its CPU limit ended runs in a low-priority worker of its own until the host restarts
(docs/sandbox.md, CPU share). Stored; loaded versions move at once.
Without effect in the in-process sandbox.

Options:
${PLUGIN_OPTIONS_HELP}

Example:
  airlock plugins worker weather own
`,
  async run(args, io) {
    const parsed = parseOptions(args, PLUGIN_OPTIONS, 2);
    const namespace = requiredPositional(parsed, 0, "<namespace>");
    const tier = requiredPositional(parsed, 1, "<own|shared>");
    if (tier !== "own" && tier !== "shared")
      throw cliError("AIRLOCK_CLI_USAGE", `the tier is own or shared (got ${JSON.stringify(tier)})`);
    const view = await withInstalledPlugin(parsed, io, namespace, (host) =>
      host.setPluginWorker(namespace, tier),
    );
    printJsonOr(io, parsed, view, () =>
      view.tier === "own"
        ? `${namespace} runs in a sandbox worker of its own.\n`
        : `${namespace} runs in the shared sandbox workers.\n`,
    );
    return 0;
  },
};

const upgradeCommand: CliCommand = {
  path: ["plugins", "upgrade"],
  summary: "Upgrade a plugin from the registry it was installed from",
  help: `Usage: airlock plugins upgrade <namespace> [range] [options]

Resolves the range (default: the registry's latest) against the registry the active version
came from and installs that version with every install check; the current version becomes
the previous one. A plugin installed from a .tgz is upgraded by installing the new file.
A version lower than the active one is refused unless --allow-downgrade.

Options:
${installDecisionsHelp("upgrade")}
  (the key kept for the namespace at install is trusted; --trust-key adds one)
${PLUGIN_OPTIONS_HELP}

Example:
  airlock plugins upgrade weather ^1.3.0
`,
  async run(args, io) {
    const parsed = parseOptions(args, { ...PLUGIN_OPTIONS, ...INSTALL_DECISION_OPTIONS }, 2);
    const namespace = requiredPositional(parsed, 0, "<namespace>");
    const range = parsed.positionals[1];
    const trustKeys = trustKeysOf(parsed, io);
    const { before, report } = await withInstalledPlugin(parsed, io, namespace, async (host) => {
      const active = (await host.plugins.list()).find((p) => p.namespace === namespace)?.active ?? null;
      const upgraded = await host.plugins.upgrade(namespace, range, {
        ...installDecisions(parsed),
        trustKeys,
      });
      return { before: active, report: upgraded };
    });
    printJsonOr(io, parsed, report, () =>
      report.version === before
        ? `${report.namespace} is already at ${report.version}.\n`
        : `Upgraded ${report.namespace} from ${before} to ${report.version}.\n`,
    );
    return 0;
  },
};

const rollbackCommand: CliCommand = {
  path: ["plugins", "rollback"],
  summary: "Make the previous installed version active again",
  help: `Usage: airlock plugins rollback <namespace> [options]

Swaps the active and previous versions in one step (running it twice returns to where you
started). Fails with AIRLOCK_INSTALL_NO_PREVIOUS when there is nothing to roll back to.

Options:
${PLUGIN_OPTIONS_HELP}

Example:
  airlock plugins rollback weather
`,
  async run(args, io) {
    const parsed = parseOptions(args, PLUGIN_OPTIONS, 1);
    const namespace = requiredPositional(parsed, 0, "<namespace>");
    const report = await withInstalledPlugin(parsed, io, namespace, (host) =>
      host.plugins.rollback(namespace),
    );
    printJsonOr(
      io,
      parsed,
      report,
      () => `Rolled ${report.namespace} back to ${report.version} (previous: ${report.previous}).\n`,
    );
    return 0;
  },
};

const uninstallCommand: CliCommand = {
  path: ["plugins", "uninstall"],
  summary: "Uninstall a plugin (keeps its knowledge and secrets unless --purge)",
  help: `Usage: airlock plugins uninstall <namespace> [--purge] [options]

Stops serving the plugin, removes its tools from every agent, deletes its files and
records, and reports what it kept: knowledge documents the plugin wrote and the secrets its
tools declared. With --purge those documents are deleted too, and so are the secrets that
no other installed plugin declares.

Options:
  --purge            Also delete the plugin's knowledge documents and its own secrets.
${PLUGIN_OPTIONS_HELP}

Example:
  airlock plugins uninstall weather --purge
`,
  async run(args, io) {
    const parsed = parseOptions(args, { ...PLUGIN_OPTIONS, purge: { type: "boolean" } }, 1);
    const namespace = requiredPositional(parsed, 0, "<namespace>");
    const report = await withInstalledPlugin(parsed, io, namespace, (host) =>
      host.plugins.uninstall(namespace, { purge: parsed.values.purge === true }),
    );
    printJsonOr(io, parsed, report, () => {
      const lines = [
        `Uninstalled ${report.namespace} (${report.removedVersions.join(", ")}); tools removed from ${report.disabledForAgents} agent enablement(s).`,
        `  kept:   ${report.kept.knowledgeDocuments} knowledge document(s); secrets: ${report.kept.secrets.join(", ") || "none"}`,
      ];
      if (report.purged !== null) {
        lines.push(
          `  purged: ${report.purged.knowledgeDocuments} knowledge document(s); secrets: ${report.purged.secrets.join(", ") || "none"}`,
        );
      }
      return `${lines.join("\n")}\n`;
    });
    return 0;
  },
};

const keysCommand: CliCommand = {
  path: ["plugins", "keys"],
  summary: "List the publisher keys a namespace trusts, or forget one (--forget KEYID)",
  help: `Usage: airlock plugins keys <namespace> [--forget KEYID] [options]

Lists the publisher keys the namespace trusts: the key that verified an install of it, kept in
the store so every host on it (every replica) trusts it. With --forget the key is no longer
trusted on any host (audited as plugin.trust.forget); installed versions stay installed.

Options:
  --forget KEYID     The key id to forget (SHA256:..., as the list prints it).
${PLUGIN_OPTIONS_HELP}

Example:
  airlock plugins keys weather --forget SHA256:q3Vx...
`,
  async run(args, io) {
    const parsed = parseOptions(args, { ...PLUGIN_OPTIONS, forget: { type: "string" } }, 1);
    const namespace = requiredPositional(parsed, 0, "<namespace>");
    const forget = parsed.values.forget;
    if (typeof forget === "string") {
      const gone = await withPluginHost(parsed, io, (host) =>
        host.plugins.forgetTrustedKey(namespace, forget),
      );
      printJsonOr(io, parsed, gone, () => `${namespace} no longer trusts ${gone.keyId}.\n`);
      return 0;
    }
    const keys = await withPluginHost(parsed, io, (host) => host.plugins.trustedKeys(namespace));
    printJsonOr(io, parsed, { keys }, () =>
      keys.length === 0
        ? `${namespace} trusts no publisher key.\n`
        : keys.map((k) => `${k.keyId}  (since ${k.addedAt})\n`).join(""),
    );
    return 0;
  },
};

export const pluginsCommands: CliCommand[] = [
  listCommand,
  keysCommand,
  upgradeCommand,
  rollbackCommand,
  uninstallCommand,
  workerCommand,
];
