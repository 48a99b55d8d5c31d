// `airlock tokens …`: issue operator and agent tokens, list them, and revoke one by id. Like the
// other commands they act on the running host through its admin API when one serves the data
// dir, else on the data dir itself (target.ts). A token is shown once, when issued; the store
// keeps only its hash, and a listing shows ids, roles, labels and prefixes, never a value.
// Invariants: revoking an id no token has is an error (AIRLOCK_AUTH_TOKEN_NOT_FOUND on a data
// dir, AIRLOCK_API_UNKNOWN_TOKEN through a running host), never "revoked".
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import { parseOptions, requiredPositional, stringOption } from "../args.ts";
import { cliError } from "../errors.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP, requireAgent } from "../open-host.ts";
import { TARGET_OPTIONS, TARGET_OPTIONS_HELP, withAdminTarget } from "../target.ts";
import type { CliCommand } from "../types.ts";

const OPTIONS = { ...HOST_OPTIONS, ...TARGET_OPTIONS, json: { type: "boolean" } } as const;
const OPTIONS_HELP = `${HOST_OPTIONS_HELP}\n${TARGET_OPTIONS_HELP}\n  --json             Print JSON.`;

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
${OPTIONS_HELP}

Example:
  airlock tokens create --role agent --agent support-bot --label "claude desktop"
`,
  async run(args, io) {
    const parsed = parseOptions(args, {
      ...OPTIONS,
      role: { type: "string" },
      agent: { type: "string" },
      label: { type: "string" },
    });
    const role = stringOption(parsed, "role");
    if (role !== "operator" && role !== "agent")
      throw cliError("AIRLOCK_CLI_USAGE", "--role must be operator or agent");
    const agent = stringOption(parsed, "agent");
    if (role === "agent" && agent === undefined)
      throw cliError("AIRLOCK_CLI_USAGE", "--role agent needs --agent <slug>");
    if (role === "operator" && agent !== undefined)
      throw cliError("AIRLOCK_CLI_USAGE", "an operator token has no --agent");
    const issued = await withAdminTarget(parsed, io, async (host) => {
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

const listCommand: CliCommand = {
  path: ["tokens", "list"],
  summary: "List tokens (ids, roles, agents, labels; never a token's value)",
  help: `Usage: airlock tokens list [--agent SLUG] [options]

Lists the tokens that are not revoked: id, role, agent, the token's first characters and
its label. Values are never shown (the host keeps only hashes); revoke one by its id.

Options:
  --agent SLUG       Only this agent's tokens.
${OPTIONS_HELP}

Example:
  airlock tokens list --agent support-bot
`,
  async run(args, io) {
    const parsed = parseOptions(args, { ...OPTIONS, agent: { type: "string" } });
    const agent = stringOption(parsed, "agent");
    const tokens = await withAdminTarget(parsed, io, async (host) => {
      if (agent !== undefined) await requireAgent(host, agent);
      return host.listTokens(agent);
    });
    if (parsed.values.json === true) io.stdout(`${JSON.stringify(tokens, null, 2)}\n`);
    else if (tokens.length === 0) io.stdout("No tokens.\n");
    else {
      const rows = tokens.map((t) => [t.id, t.role, t.agent ?? "-", `${t.prefix}…`, t.createdAt, t.label]);
      const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => (r[i] as string).length)));
      const line = (r: string[]) => r.map((cell, i) => (i < 5 ? cell.padEnd(widths[i] as number) : cell));
      io.stdout(`${rows.map((r) => line(r).join("  ").trimEnd()).join("\n")}\n`);
    }
    return 0;
  },
};

const revokeCommand: CliCommand = {
  path: ["tokens", "revoke"],
  summary: "Revoke a token by its id",
  help: `Usage: airlock tokens revoke <token-id> [options]

Revokes a token (its id is printed when it is issued, and by \`airlock tokens list\`,
e.g. tok_…). Requests that present it are refused from then on. An id no token has is an
error (exit 1), not a revocation.

Options:
${OPTIONS_HELP}

Example:
  airlock tokens revoke tok_Zx81sQ
`,
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS, 1);
    const id = requiredPositional(parsed, 0, "<token-id>");
    if (!/^tok_[A-Za-z0-9_-]{1,64}$/.test(id))
      throw cliError("AIRLOCK_CLI_USAGE", `a token id looks like tok_… (got ${JSON.stringify(id)})`);
    await withAdminTarget(parsed, io, (host) => host.revokeToken(id)).catch((error: unknown) => {
      if (!hasCode(error, "AIRLOCK_AUTH_TOKEN_NOT_FOUND") && !hasCode(error, "AIRLOCK_API_UNKNOWN_TOKEN"))
        throw error;
      throw new AirlockError(
        error.code,
        `no token has id ${JSON.stringify(id)} (revoked already, or mistyped) — \`airlock tokens list\` shows the ids`,
        { status: 404, cause: error },
      );
    });
    io.stdout(
      parsed.values.json === true ? `${JSON.stringify({ id, revoked: true })}\n` : `Token ${id} revoked.\n`,
    );
    return 0;
  },
};

export const tokensCommands: CliCommand[] = [createCommand, listCommand, revokeCommand];
