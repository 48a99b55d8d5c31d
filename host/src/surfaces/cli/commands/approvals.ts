// `airlock approvals list|approve|deny`: the tool calls waiting for an operator, and deciding
// them, through the running host's admin API (target.ts; the data dir itself when no host runs,
// since approvals are rows of the shared store). Contract: `approve`/`deny` take the id `list`
// prints; an id that is not pending (unknown, decided, cancelled) is an error (exit 1) that says
// so, never "approved". Every decision is audited by the host (via "admin API").
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import { parseOptions, requiredPositional, stringOption } from "../args.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP, requireAgent } from "../open-host.ts";
import { TARGET_OPTIONS, TARGET_OPTIONS_HELP, withAdminTarget } from "../target.ts";
import type { CliCommand } from "../types.ts";

const OPTIONS = { ...HOST_OPTIONS, ...TARGET_OPTIONS, json: { type: "boolean" } } as const;
const OPTIONS_HELP = `${HOST_OPTIONS_HELP}\n${TARGET_OPTIONS_HELP}\n  --json             Print JSON.`;

/** A short one-line view of a call's input for the listing. */
function preview(input: unknown): string {
  const text = JSON.stringify(input) ?? "";
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

const listCommand: CliCommand = {
  path: ["approvals", "list"],
  summary: "List the tool calls waiting for an operator's approval",
  help: `Usage: airlock approvals list [--agent SLUG] [options]

Lists the pending approvals of every replica sharing the store, oldest first: id, agent,
tool, when it was asked, and the call's input. Decide one with \`airlock approvals approve
<id>\` or \`airlock approvals deny <id>\` (the console's Approvals page does the same).

Options:
  --agent SLUG       Only this agent's approvals.
${OPTIONS_HELP}

Example:
  airlock approvals list --agent support-bot
`,
  async run(args, io) {
    const parsed = parseOptions(args, { ...OPTIONS, agent: { type: "string" } });
    const agent = stringOption(parsed, "agent");
    const approvals = await withAdminTarget(parsed, io, async (host) => {
      if (agent !== undefined) await requireAgent(host, agent);
      return host.listApprovals(agent);
    });
    if (parsed.values.json === true) io.stdout(`${JSON.stringify(approvals, null, 2)}\n`);
    else if (approvals.length === 0) io.stdout("No approvals waiting.\n");
    else {
      const lines = approvals.map(
        (a) => `${a.id}\t${a.agent}\t${a.toolName}\t${a.requestedAt}\t${preview(a.input)}`,
      );
      io.stdout(`${lines.join("\n")}\n`);
    }
    return 0;
  },
};

function decideCommand(approve: boolean): CliCommand {
  const verb = approve ? "approve" : "deny";
  return {
    path: ["approvals", verb],
    summary: approve
      ? "Approve a pending tool call (it runs)"
      : "Deny a pending tool call (the model is told)",
    help: `Usage: airlock approvals ${verb} <id> [--reason TEXT] [options]

${approve ? "Approves the pending call: it runs and its result goes to the client." : "Denies the pending call: the model receives the denial (with the reason) as the tool's result."}
The id is the one \`airlock approvals list\` prints. An id that is not pending is an error,
exit 1: AIRLOCK_APPROVAL_ALREADY_DECIDED (someone decided first; the message says how),
AIRLOCK_APPROVAL_CALL_GONE (its call no longer waits: cancelled, timed out, or its replica
stopped; nothing runs), or an unknown id.

Options:
  --reason TEXT      Why; recorded in the audit log${approve ? "" : " and shown to the model"}.
${OPTIONS_HELP}

Example:
  airlock approvals ${verb} apr_6f1d2c3e-5b7a-4c1e-9a0b-2d4e6f8a1b3c --reason "${approve ? "checked with the customer" : "not during the freeze"}"
`,
    async run(args, io) {
      const parsed = parseOptions(args, { ...OPTIONS, reason: { type: "string" } }, 1);
      const id = requiredPositional(parsed, 0, "<id>");
      const reason = stringOption(parsed, "reason");
      await withAdminTarget(parsed, io, (host) =>
        host.decideApproval(id, reason === undefined ? { approve } : { approve, reason }),
      ).catch((error: unknown) => {
        if (!hasCode(error, "AIRLOCK_APPROVAL_NOT_FOUND") && !hasCode(error, "AIRLOCK_API_UNKNOWN_APPROVAL"))
          throw error;
        throw new AirlockError(
          error.code,
          `no pending approval has id ${JSON.stringify(id)} (mistyped, or ended long ago) — \`airlock approvals list\` shows the pending ones`,
          { status: 404, cause: error },
        );
      });
      io.stdout(
        parsed.values.json === true
          ? `${JSON.stringify({ id, approved: approve })}\n`
          : `${approve ? "Approved" : "Denied"} ${id}.\n`,
      );
      return 0;
    },
  };
}

export const approvalsCommands: CliCommand[] = [listCommand, decideCommand(true), decideCommand(false)];
