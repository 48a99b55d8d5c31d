// `airlock tokens …`: issue operator and agent tokens, and revoke one by id. Works directly on
// a data directory. A token is shown once, when issued; the store keeps only its hash.
import { parseOptions, requiredPositional, stringOption } from "../args.ts";
import { cliError } from "../errors.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP, hostOptionsFrom, requireAgent, withHost } from "../open-host.ts";
import type { CliCommand } from "../types.ts";

const createCommand: CliCommand = {
  path: ["tokens", "create"],
  summary: "Issue an operator or agent token",
  help: `Usage: airlock tokens create --role operator|agent [--agent SLUG] [--label TEXT] [options]

Issues a token and prints it once (the host stores only its hash) with its id.
An agent token (--role agent --agent SLUG) can list and call that agent's tools and
use its MCP endpoint; an operator token can do everything.

Options:
  --role ROLE        operator or agent (required).
  --agent SLUG       The agent an agent token acts for (required with --role agent).
  --label TEXT       A note to recognise the token by.
${HOST_OPTIONS_HELP}
  --json             Print JSON.

Example:
  airlock tokens create --role agent --agent support-bot --label "claude desktop"
`,
  async run(args, io) {
    const parsed = parseOptions(args, {
      ...HOST_OPTIONS,
      role: { type: "string" },
      agent: { type: "string" },
      label: { type: "string" },
      json: { type: "boolean" },
    });
    const role = stringOption(parsed, "role");
    if (role !== "operator" && role !== "agent")
      throw cliError("AIRLOCK_CLI_USAGE", "--role must be operator or agent");
    const agent = stringOption(parsed, "agent");
    if (role === "agent" && agent === undefined)
      throw cliError("AIRLOCK_CLI_USAGE", "--role agent needs --agent <slug>");
    if (role === "operator" && agent !== undefined)
      throw cliError("AIRLOCK_CLI_USAGE", "an operator token has no --agent");
    const issued = await withHost(hostOptionsFrom(parsed, io, "in-process"), async (host) => {
      if (agent !== undefined) await requireAgent(host, agent);
      return host.issueToken(role, agent, stringOption(parsed, "label") ?? "issued by airlock tokens create");
    });
    io.stdout(
      parsed.values.json === true
        ? `${JSON.stringify(issued)}\n`
        : `id:    ${issued.id}\ntoken: ${issued.token}\n`,
    );
    return 0;
  },
};

const revokeCommand: CliCommand = {
  path: ["tokens", "revoke"],
  summary: "Revoke a token by its id",
  help: `Usage: airlock tokens revoke <token-id> [options]

Revokes a token (its id is printed when it is issued, e.g. tok_…). Requests that
present it are refused from then on.

Options:
${HOST_OPTIONS_HELP}

Example:
  airlock tokens revoke tok_Zx81sQ
`,
  async run(args, io) {
    const parsed = parseOptions(args, HOST_OPTIONS, 1);
    const id = requiredPositional(parsed, 0, "<token-id>");
    if (!/^tok_[A-Za-z0-9_-]{1,64}$/.test(id))
      throw cliError("AIRLOCK_CLI_USAGE", "a token id looks like tok_…");
    // AIRLOCK_AUTH_TOKEN_NOT_FOUND when no token has this id (revoked already, or mistyped).
    await withHost(hostOptionsFrom(parsed, io, "in-process"), (host) => host.revokeToken(id));
    io.stdout(`Token ${id} revoked.\n`);
    return 0;
  },
};

export const tokensCommands: CliCommand[] = [createCommand, revokeCommand];
