import { enumOption, type Parsed, parseOptions, requiredPositional, stringOption } from "../args.ts";
import { cliError } from "../errors.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP } from "../open-host.ts";
import { TARGET_OPTIONS, TARGET_OPTIONS_HELP, withAdminTarget } from "../target.ts";
import type { CliCommand, CliIO } from "../types.ts";

const OPTIONS = { ...HOST_OPTIONS, ...TARGET_OPTIONS, json: { type: "boolean" } } as const;
const OPTIONS_HELP = `${HOST_OPTIONS_HELP}\n${TARGET_OPTIONS_HELP}\n  --json             Print JSON.`;

function print(io: CliIO, parsed: Parsed, data: unknown, text: () => string): number {
  io.stdout(parsed.values.json === true ? `${JSON.stringify(data, null, 2)}\n` : text());
  return 0;
}

function help(usage: string, what: string, extra: string, example: string): string {
  return `Usage: airlock ${usage} [options]\n\n${what}\n\nOptions:\n${extra}${OPTIONS_HELP}\n\nExample:\n  airlock ${example}\n`;
}

function budget(parsed: Parsed, name: string): number | null {
  const raw = stringOption(parsed, name);
  if (raw === undefined) return null;
  if (!/^\d{1,15}$/.test(raw)) throw cliError("AIRLOCK_CLI_USAGE", `--${name} must be a whole number`);
  return Number(raw);
}

const oauthList: CliCommand = {
  path: ["oauth", "list"],
  summary: "List an agent's OAuth connections (provider, scopes, expiry; never a token)",
  help: help(
    "oauth list <agent>",
    "Lists the accounts connected for the agent, by provider and scopes.",
    "",
    "oauth list support-bot",
  ),
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS, 1);
    const agent = requiredPositional(parsed, 0, "<agent>");
    const connections = await withAdminTarget(parsed, io, (host) => host.oauth.connections(agent));
    return print(io, parsed, connections, () =>
      connections.length === 0
        ? `No OAuth connections for ${agent}.\n`
        : `${connections
            .map(
              (c) =>
                `${c.provider}${c.subject === "" ? "" : ` (user ${c.subject})`}\tvia ${c.plugin}\tscopes: ${c.scopes.join(" ") || "-"}\texpires: ${c.expiresAt ?? "never"}${c.refreshable ? " (refreshable)" : ""}`,
            )
            .join("\n")}\n`,
    );
  },
};

const oauthLink: CliCommand = {
  path: ["oauth", "link"],
  summary: "Print a connect link that signs an account in for an agent",
  help: help(
    "oauth link <agent> <plugin> <provider>",
    "Prints a link (valid 15 minutes) that starts the provider's sign-in for the agent.\nThe person opens it in a browser; the host keeps the token, encrypted.",
    "  --subject ID       Connect for this end user of the agent (default: the agent itself).\n",
    "oauth link support-bot github-tools github",
  ),
  async run(args, io) {
    const parsed = parseOptions(args, { ...OPTIONS, subject: { type: "string" } }, 3);
    const [agent, plugin, provider] = [0, 1, 2].map((i) =>
      requiredPositional(parsed, i, ["<agent>", "<plugin>", "<provider>"][i] as string),
    ) as [string, string, string];
    const url = await withAdminTarget(parsed, io, (host) =>
      host.oauth.connectLink(agent, plugin, provider, stringOption(parsed, "subject")),
    );
    return print(io, parsed, { url }, () => `${url}\n`);
  },
};

const oauthDisconnect: CliCommand = {
  path: ["oauth", "disconnect"],
  summary: "Disconnect a provider for an agent (revoked at the provider when it can)",
  help: help(
    "oauth disconnect <agent> <provider>",
    "Revokes the agent's token at the provider (when it has a revocation endpoint) and forgets it.",
    "  --subject ID       The end user's connection (default: the agent's own).\n",
    "oauth disconnect support-bot github",
  ),
  async run(args, io) {
    const parsed = parseOptions(args, { ...OPTIONS, subject: { type: "string" } }, 2);
    const agent = requiredPositional(parsed, 0, "<agent>");
    const provider = requiredPositional(parsed, 1, "<provider>");
    const done = await withAdminTarget(parsed, io, (host) =>
      host.oauth.disconnect(agent, provider, stringOption(parsed, "subject")),
    );
    if (!done)
      throw cliError(
        "AIRLOCK_CLI_NOT_FOUND",
        `${agent} has no ${provider} connection — nothing to disconnect (\`airlock oauth list ${agent}\` shows them)`,
      );
    return print(io, parsed, { disconnected: done }, () => `Disconnected ${provider} for ${agent}.\n`);
  },
};

const modelsSet: CliCommand = {
  path: ["models", "set"],
  summary: "Create or replace a model connection (OpenAI-compatible API)",
  help: help(
    "models set <name> --base-url URL --model NAME --api-key-env VAR",
    "Stores a connection to an OpenAI-compatible chat completions API. The key is read from\nthe environment variable VAR (never from the command line) and stored encrypted.",
    "  --base-url URL     The API root, e.g. https://api.openai.com/v1 (required).\n  --model NAME       The model to call (required).\n  --api-key-env VAR  The environment variable holding the provider key (required).\n",
    "models set openai --base-url https://api.openai.com/v1 --model gpt-4o-mini --api-key-env OPENAI_API_KEY",
  ),
  async run(args, io) {
    const parsed = parseOptions(
      args,
      {
        ...OPTIONS,
        "base-url": { type: "string" },
        model: { type: "string" },
        "api-key-env": { type: "string" },
      },
      1,
    );
    const name = requiredPositional(parsed, 0, "<name>");
    const baseUrl = stringOption(parsed, "base-url");
    const model = stringOption(parsed, "model");
    const keyVar = stringOption(parsed, "api-key-env");
    if (baseUrl === undefined || model === undefined || keyVar === undefined)
      throw cliError("AIRLOCK_CLI_USAGE", "models set needs --base-url, --model and --api-key-env");
    const apiKey = io.env[keyVar];
    if (apiKey === undefined || apiKey === "")
      throw cliError("AIRLOCK_CLI_USAGE", `the environment variable ${keyVar} is not set`);
    const view = await withAdminTarget(parsed, io, (host) =>
      host.models.setConnection({ name, baseUrl, model, apiKey }),
    );
    return print(
      io,
      parsed,
      view,
      () => `Model connection ${view.name}: ${view.model} at ${view.baseUrl} (key stored encrypted).\n`,
    );
  },
};

const modelsList: CliCommand = {
  path: ["models", "list"],
  summary: "List model connections (never the key)",
  help: help("models list", "Lists the model connections.", "", "models list"),
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS);
    const list = await withAdminTarget(parsed, io, (host) => host.models.connections());
    return print(io, parsed, list, () =>
      list.length === 0
        ? "No model connections. Add one with `airlock models set`.\n"
        : `${list.map((c) => `${c.name}\t${c.model}\t${c.baseUrl}`).join("\n")}\n`,
    );
  },
};

const modelsRemove: CliCommand = {
  path: ["models", "remove"],
  summary: "Remove a model connection and its grants",
  help: help(
    "models remove <name>",
    "Removes the connection; every grant of it goes too.",
    "",
    "models remove openai",
  ),
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS, 1);
    const name = requiredPositional(parsed, 0, "<name>");
    const removed = await withAdminTarget(parsed, io, (host) => host.models.removeConnection(name));
    if (!removed)
      throw cliError(
        "AIRLOCK_CLI_NOT_FOUND",
        `there is no model connection ${JSON.stringify(name)} — nothing to remove (\`airlock models list\` shows them)`,
      );
    return print(io, parsed, { removed }, () => `Removed ${name}.\n`);
  },
};

const modelsGrant: CliCommand = {
  path: ["models", "grant"],
  summary: "Grant an agent's plugin a model connection with a budget",
  help: help(
    "models grant <agent> <plugin> <connection>",
    "Lets the plugin's tools call the connection through ctx.models for this agent, within the\nbudget; past it, calls are refused with AIRLOCK_MODEL_BUDGET_EXHAUSTED and nothing is sent.",
    "  --max-tokens N     Tokens (input + output) per period (default: unbounded).\n  --max-calls N      Calls per period (default: unbounded).\n  --period P         day, month or total. Default: day\n",
    "models grant support-bot summarizer openai --max-tokens 200000 --period day",
  ),
  async run(args, io) {
    const parsed = parseOptions(
      args,
      {
        ...OPTIONS,
        "max-tokens": { type: "string" },
        "max-calls": { type: "string" },
        period: { type: "string" },
      },
      3,
    );
    const agent = requiredPositional(parsed, 0, "<agent>");
    const plugin = requiredPositional(parsed, 1, "<plugin>");
    const connection = requiredPositional(parsed, 2, "<connection>");
    const period = enumOption(parsed, "period", ["day", "month", "total"] as const, "day");
    const grant = await withAdminTarget(parsed, io, (host) =>
      host.models.grant(agent, plugin, {
        connection,
        maxTokens: budget(parsed, "max-tokens"),
        maxCalls: budget(parsed, "max-calls"),
        period,
      }),
    );
    return print(
      io,
      parsed,
      grant,
      () => `Granted ${plugin} (agent ${agent}) model connection ${connection}.\n`,
    );
  },
};

const modelsGrants: CliCommand = {
  path: ["models", "grants"],
  summary: "List an agent's model grants with this period's usage",
  help: help(
    "models grants <agent>",
    "Lists the agent's plugins' model grants and what they used this period.",
    "",
    "models grants support-bot",
  ),
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS, 1);
    const agent = requiredPositional(parsed, 0, "<agent>");
    const grants = await withAdminTarget(parsed, io, (host) => host.models.grants(agent));
    return print(io, parsed, grants, () =>
      grants.length === 0
        ? `No model grants for ${agent}.\n`
        : `${grants
            .map(
              (g) =>
                `${g.plugin}\t${g.connection}\t${g.used.calls} calls, ${g.used.tokens} tokens this ${g.period} (limit ${g.maxCalls ?? "∞"} calls, ${g.maxTokens ?? "∞"} tokens)`,
            )
            .join("\n")}\n`,
    );
  },
};

const modelsRevoke: CliCommand = {
  path: ["models", "revoke"],
  summary: "Revoke an agent's plugin's model grant",
  help: help(
    "models revoke <agent> <plugin>",
    "Removes the grant; the plugin's ctx.models calls are refused from then on.",
    "",
    "models revoke support-bot summarizer",
  ),
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS, 2);
    const agent = requiredPositional(parsed, 0, "<agent>");
    const plugin = requiredPositional(parsed, 1, "<plugin>");
    const revoked = await withAdminTarget(parsed, io, (host) => host.models.revoke(agent, plugin));
    if (!revoked)
      throw cliError(
        "AIRLOCK_CLI_NOT_FOUND",
        `${plugin} has no model grant for ${agent} — nothing to revoke (\`airlock models grants ${agent}\` shows them)`,
      );
    return print(io, parsed, { revoked }, () => "Revoked.\n");
  },
};

export const brokerCommands: CliCommand[] = [
  oauthList,
  oauthLink,
  oauthDisconnect,
  modelsSet,
  modelsList,
  modelsRemove,
  modelsGrant,
  modelsGrants,
  modelsRevoke,
];
