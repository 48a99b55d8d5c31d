// `airlock agents …`: list, create and delete agents, show and change what each is served, set
// its knowledge level. Through the running host's admin API when one serves the data dir, else
// on the data dir itself (target.ts); `create` keeps the agent's token in its credentials.json.

import { didYouMean } from "@airlock/sdk/cli-kit";
import type { AgentKnowledgeLevel } from "../../../contracts/records.ts";
import { parseOptions, requiredPositional } from "../args.ts";
import { ensureAgentToken } from "../credentials.ts";
import { cliError } from "../errors.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP, hostOptionsFrom, requireAgent } from "../open-host.ts";
import {
  resolveTarget,
  TARGET_OPTIONS,
  TARGET_OPTIONS_HELP,
  withAdminTarget,
  withCliHost,
} from "../target.ts";
import type { CliCommand, CliIO } from "../types.ts";
import { codeModeCommand } from "./code-mode.ts";
import { snippetsCommand } from "./snippets.ts";

const OPTIONS = { ...HOST_OPTIONS, ...TARGET_OPTIONS, json: { type: "boolean" } } as const;
const OPTIONS_HELP = `${HOST_OPTIONS_HELP}\n${TARGET_OPTIONS_HELP}`;

const LEVELS: readonly AgentKnowledgeLevel[] = ["none", "read", "write", "manage"];

function print(io: CliIO, json: boolean, data: unknown, text: () => string): number {
  io.stdout(json ? `${JSON.stringify(data, null, 2)}\n` : text());
  return 0;
}

function usage(path: string, args: string, what: string, example: string, options = ""): string {
  return `Usage: airlock agents ${path}${args} [options]\n\n${what}\n\nOptions:\n${options}${OPTIONS_HELP}\n  --json             Print JSON.\n\nExample:\n  airlock agents ${path} ${example}\n`;
}

const listCommand: CliCommand = {
  path: ["agents", "list"],
  summary: "List agents and their knowledge levels",
  help: usage("list", "", "Lists every agent with its knowledge level.", "--data-dir ./airlock-data"),
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS);
    const agents = await withAdminTarget(parsed, io, (host) => host.listAgents());
    return print(io, parsed.values.json === true, agents, () =>
      agents.length === 0
        ? "No agents. Create one with `airlock agents create <slug>`.\n"
        : `${agents.map((a) => `${a.slug}\tknowledge=${a.knowledgeLevel}\tcreated=${a.createdAt}`).join("\n")}\n`,
    );
  },
};

const createCommand: CliCommand = {
  path: ["agents", "create"],
  summary: "Create an agent and print its token",
  help: usage(
    "create",
    " <slug>",
    "Creates an agent (knowledge level read, no tools enabled) and prints an agent token\nfor its MCP endpoint and tool calls (kept in <data-dir>/credentials.json).",
    "support-bot",
  ),
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS, 1);
    const slug = requiredPositional(parsed, 0, "<slug>");
    if (parsed.values["admin-url"] !== undefined)
      throw cliError(
        "AIRLOCK_CLI_USAGE",
        "agents create keeps the agent's token in the data dir's credentials.json — use --data-dir (a running host on it is used through its admin API)",
      );
    const target = resolveTarget(parsed, io);
    const out = await withCliHost(target, hostOptionsFrom(parsed, io, "in-process"), io, async (host) => {
      const agent = await host.createAgent(slug);
      const token = await ensureAgentToken(host, target.dataDir, slug);
      return { agent, token };
    });
    return print(
      io,
      parsed.values.json === true,
      out,
      () => `Agent ${slug} ready.\nAgent token: ${out.token.token}\n`,
    );
  },
};

const toolsCommand: CliCommand = {
  path: ["agents", "tools"],
  summary: "Show the tools an agent is served (enabled, missing secrets)",
  help: usage("tools", " <slug>", "Shows every catalogue tool as the agent sees it.", "support-bot"),
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS, 1);
    const slug = requiredPositional(parsed, 0, "<slug>");
    const tools = await withAdminTarget(parsed, io, async (host) => {
      await requireAgent(host, slug);
      return host.listAgentTools(slug);
    });
    return print(io, parsed.values.json === true, tools, () => {
      if (tools.length === 0) return "No tools installed.\n";
      const line = (t: (typeof tools)[number]) => {
        const state = t.served
          ? "served"
          : t.enabled
            ? `enabled, missing secrets: ${t.missingSecrets.join(", ")}`
            : "disabled";
        return `${t.id}\t${state}`;
      };
      return `${tools.map(line).join("\n")}\n`;
    });
  },
};

/**
 * Refuses, before anything changes, a tool id no installed tool has (naming the nearest tool or
 * namespace) and, for disable, a tool that is not enabled (nothing to disable).
 */
function checkToggle(
  slug: string,
  ids: readonly string[],
  enable: boolean,
  tools: readonly { id: string; enabled: boolean }[],
): void {
  const known = new Map(tools.map((t) => [t.id, t]));
  for (const id of ids) {
    const tool = known.get(id);
    if (tool === undefined) {
      const namespaces = new Set(tools.map((t) => t.id.split(":")[0] as string));
      const [ns = "", name] = id.split(":");
      const hint =
        name === undefined
          ? `name a tool as <namespace>:<tool>${didYouMean(id, known.keys())}`
          : namespaces.has(ns)
            ? `no tool "${name}" in plugin "${ns}"${didYouMean(id, known.keys()) || ` — \`airlock agents tools ${slug}\` lists them`}`
            : `no plugin namespace "${ns}" is installed${didYouMean(ns, namespaces) || ` — \`airlock agents tools ${slug}\` lists the tools`}`;
      throw cliError("AIRLOCK_CLI_UNKNOWN_TOOL", `cannot ${enable ? "enable" : "disable"} "${id}": ${hint}`);
    }
    if (!enable && !tool.enabled) {
      throw cliError(
        "AIRLOCK_CLI_NOT_ENABLED",
        `${id} is not enabled for ${slug} — nothing to disable (\`airlock agents tools ${slug}\` shows what is)`,
      );
    }
  }
}

function toggleCommand(enable: boolean): CliCommand {
  const verb = enable ? "enable" : "disable";
  return {
    path: ["agents", verb],
    summary: `${enable ? "Enable" : "Disable"} tools for an agent`,
    help: usage(
      verb,
      " <slug> <ns:tool>...",
      `${enable ? "Enables" : "Disables"} the named tools for the agent.`,
      "support-bot weather:forecast",
    ),
    async run(args, io) {
      const parsed = parseOptions(args, OPTIONS, 1000);
      const slug = requiredPositional(parsed, 0, "<slug>");
      const tools = parsed.positionals.slice(1);
      if (tools.length === 0)
        throw cliError("AIRLOCK_CLI_USAGE", "name at least one tool (<namespace>:<tool>)");
      const ids = tools.map((t) => t.replace("__", ":"));
      const changes = Object.fromEntries(ids.map((id) => [id, enable]));
      const view = await withAdminTarget(parsed, io, async (host) => {
        await requireAgent(host, slug);
        checkToggle(slug, ids, enable, await host.listAgentTools(slug));
        return host.setToolsEnabled(slug, changes);
      });
      return print(
        io,
        parsed.values.json === true,
        view,
        () => `${tools.length} tool(s) ${verb}d for ${slug}.\n`,
      );
    },
  };
}

const levelCommand: CliCommand = {
  path: ["agents", "level"],
  summary: "Set an agent's knowledge level (none, read, write, manage)",
  help: usage(
    "level",
    " <slug> <none|read|write|manage>",
    "Sets the agent's knowledge level.",
    "support-bot write",
  ),
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS, 2);
    const slug = requiredPositional(parsed, 0, "<slug>");
    const level = requiredPositional(parsed, 1, "<level>") as AgentKnowledgeLevel;
    if (!LEVELS.includes(level))
      throw cliError("AIRLOCK_CLI_USAGE", `the level is one of ${LEVELS.join(", ")}`);
    await withAdminTarget(parsed, io, async (host) => {
      await requireAgent(host, slug);
      await host.setKnowledgeLevel(slug, level);
    });
    return print(
      io,
      parsed.values.json === true,
      { slug, level },
      () => `Knowledge level of ${slug}: ${level}.\n`,
    );
  },
};

const secretsCommand: CliCommand = {
  path: ["agents", "secrets"],
  summary: "List the secrets an agent's tools declare (sensitive values masked)",
  help: usage(
    "secrets",
    " <slug>",
    "Lists the secrets the agent's tools declare: set or not, sensitive values masked.",
    "support-bot",
  ),
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS, 1);
    const slug = requiredPositional(parsed, 0, "<slug>");
    const secrets = await withAdminTarget(parsed, io, async (host) => {
      await requireAgent(host, slug);
      return host.listSecrets(slug);
    });
    return print(io, parsed.values.json === true, secrets, () =>
      secrets.length === 0
        ? "No tool of this agent declares a secret.\n"
        : `${secrets.map((s) => `${s.key}\t${s.set ? (s.value ?? "set") : "not set"}\tused by ${s.tools.join(", ")}`).join("\n")}\n`,
    );
  },
};

const setSecretCommand: CliCommand = {
  path: ["agents", "set-secret"],
  summary: "Set one secret of an agent (stored encrypted)",
  help: `Usage: airlock agents set-secret <slug> <key> (--value TEXT | --from-env VAR) [options]

Sets a secret for the agent's tools; it is stored encrypted and never printed back in clear
when sensitive. Prefer --from-env to keep the value out of your shell history.

Options:
  --value TEXT       The value.
  --from-env VAR     Read the value from environment variable VAR.
${OPTIONS_HELP}
  --json             Print JSON.

Example:
  WEATHER_KEY=… airlock agents set-secret support-bot api_key --from-env WEATHER_KEY
`,
  async run(args, io) {
    const parsed = parseOptions(
      args,
      { ...OPTIONS, value: { type: "string" }, "from-env": { type: "string" } },
      2,
    );
    const slug = requiredPositional(parsed, 0, "<slug>");
    const key = requiredPositional(parsed, 1, "<key>");
    const direct = parsed.values.value;
    const envName = parsed.values["from-env"];
    if ((direct === undefined) === (envName === undefined)) {
      throw cliError("AIRLOCK_CLI_USAGE", "give exactly one of --value or --from-env");
    }
    const value = typeof direct === "string" ? direct : io.env[String(envName)];
    if (value === undefined)
      throw cliError("AIRLOCK_CLI_USAGE", `environment variable ${String(envName)} is not set`);
    const secrets = await withAdminTarget(parsed, io, async (host) => {
      await requireAgent(host, slug);
      return host.setSecrets(slug, { [key]: value });
    });
    return print(io, parsed.values.json === true, secrets, () => `Secret ${key} set for ${slug}.\n`);
  },
};

const POLICY_MODES = ["operator", "client", "auto"] as const;

const policyCommand: CliCommand = {
  path: ["agents", "policy"],
  summary: "Show or change who approves an agent's tools and which secrets a person may enter",
  help: `Usage: airlock agents policy <slug> [--approval MODE] [--destructive MODE] [--tool ns:tool=MODE]... [--ask-secrets KEYS] [options]

Shows the agent's people-in-the-loop policy, or changes it. A tool that is not read-only waits
for an approval: MODE is operator (an operator decides: admin API, console or approval page),
client (the person at the MCP client decides, through an elicitation; a client that cannot
elicit falls back to the operator) or auto (runs unasked). The default is operator.
--destructive sets the mode of the agent's destructive tools (those whose grants can delete, or
that claim so when they declare no grants: docs/behaviour.md), e.g. auto for everything else
but operator for these; a tool's own --tool mode wins over it.
--ask-secrets names the secret keys a person may enter on the host's page when a call finds
them missing (comma-separated; an empty value allows none). Every change is audited.

Options:
  --approval MODE        The agent's default: operator, client or auto.
  --destructive MODE     Destructive tools' mode: operator, client, auto, or default (as --approval).
  --tool ns:tool=MODE    A tool's own mode; ns:tool=default removes the override (repeatable).
  --ask-secrets KEYS     Secret keys a person may enter on the host's page, e.g. api_key,token.
${OPTIONS_HELP}
  --json                 Print JSON.

Example:
  airlock agents policy support-bot --approval client --tool notes:deleteNote=operator --ask-secrets api_key
  airlock agents policy support-bot --approval auto --destructive operator
`,
  async run(args, io) {
    const parsed = parseOptions(
      args,
      {
        ...OPTIONS,
        approval: { type: "string" },
        destructive: { type: "string" },
        tool: { type: "string", multiple: true },
        "ask-secrets": { type: "string" },
      },
      1,
    );
    const slug = requiredPositional(parsed, 0, "<slug>");
    const approval = parsed.values.approval;
    const tools = (parsed.values.tool ?? []) as string[];
    const ask = parsed.values["ask-secrets"];
    const patch: Record<string, unknown> = {};
    if (approval !== undefined) {
      if (!(POLICY_MODES as readonly unknown[]).includes(approval)) {
        throw cliError("AIRLOCK_CLI_USAGE", `--approval is one of ${POLICY_MODES.join(", ")}`);
      }
      patch.approval = approval;
    }
    const destructive = parsed.values.destructive;
    if (destructive !== undefined) {
      if (!(destructive === "default" || (POLICY_MODES as readonly unknown[]).includes(destructive))) {
        throw cliError("AIRLOCK_CLI_USAGE", `--destructive is one of ${POLICY_MODES.join(", ")} or default`);
      }
      patch.destructive = destructive === "default" ? null : destructive;
    }
    if (tools.length > 0) {
      const map: Record<string, string | null> = {};
      for (const item of tools) {
        const at = item.lastIndexOf("=");
        const id = at < 0 ? "" : item.slice(0, at).replace("__", ":");
        const value = at < 0 ? "" : item.slice(at + 1);
        if (id === "" || !(value === "default" || (POLICY_MODES as readonly string[]).includes(value))) {
          throw cliError(
            "AIRLOCK_CLI_USAGE",
            `--tool takes ns:tool=MODE (operator, client, auto or default), got ${JSON.stringify(item)}`,
          );
        }
        map[id] = value === "default" ? null : value;
      }
      patch.tools = map;
    }
    if (typeof ask === "string") {
      patch.askSecrets = ask
        .split(",")
        .map((k) => k.trim())
        .filter((k) => k !== "");
    }
    const policy = await withAdminTarget(parsed, io, async (host) => {
      await requireAgent(host, slug);
      return Object.keys(patch).length === 0 ? host.getPeoplePolicy(slug) : host.setPeoplePolicy(slug, patch);
    });
    return print(io, parsed.values.json === true, policy, () => {
      const overrides = Object.entries(policy.tools).map(([id, m]) => `\n  ${id}: ${m}`);
      const destructiveMode = policy.destructive === null ? "" : `; destructive tools: ${policy.destructive}`;
      return `Approvals for ${slug}: ${policy.approval}${destructiveMode}${overrides.length > 0 ? `; per tool:${overrides.join("")}` : ""}\nSecrets a person may enter: ${policy.askSecrets.length === 0 ? "none" : policy.askSecrets.join(", ")}\n`;
    });
  },
};

const deleteCommand: CliCommand = {
  path: ["agents", "delete"],
  summary: "Delete an agent with its tokens, enabled tools, secrets and documents",
  help: usage(
    "delete",
    " <slug> --yes",
    "Deletes the agent with its tokens, enabled tools, secrets, conversation state, artifacts\nand knowledge documents (audited agent.delete). Without --yes it only shows what would be\nremoved and exits 2. An agent that does not exist is an error (exit 1).",
    "support-bot --yes",
    "  --yes              Delete it (without: show what would be removed).\n",
  ),
  async run(args, io) {
    const parsed = parseOptions(args, { ...OPTIONS, yes: { type: "boolean" } }, 1);
    const slug = requiredPositional(parsed, 0, "<slug>");
    const yes = parsed.values.yes === true;
    const removal = await withAdminTarget(parsed, io, async (host) => {
      await requireAgent(host, slug);
      return yes ? host.deleteAgent(slug) : host.previewAgentRemoval(slug);
    });
    const what = `${removal.tokens.length} token(s), ${removal.enabledTools.length} enabled tool(s), ${removal.secrets.length} secret(s), ${removal.knowledgeDocuments} document(s), ${removal.pendingApprovals} pending approval(s)`;
    if (!yes) {
      throw cliError("AIRLOCK_CLI_USAGE", `deleting agent ${slug} removes ${what} — pass --yes to delete it`);
    }
    return print(io, parsed.values.json === true, removal, () => `Agent ${slug} deleted (${what}).\n`);
  },
};

export const agentsCommands: CliCommand[] = [
  listCommand,
  createCommand,
  deleteCommand,
  toolsCommand,
  toggleCommand(true),
  toggleCommand(false),
  levelCommand,
  secretsCommand,
  setSecretCommand,
  codeModeCommand,
  snippetsCommand,
  policyCommand,
];
