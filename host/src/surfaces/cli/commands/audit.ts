// `airlock audit`: the audit log of the running host (its admin API, GET /api/audit; the data
// dir itself when no host runs), filtered like the console's audit page, oldest first on screen.
// Contract: --since/--until take an ISO time or an age (30s, 10m, 2h, 7d); --limit caps the
// entries (default 50, at most 1000); --json prints one JSON object per line; --follow keeps
// printing new entries until interrupted (it polls every --interval seconds, default 2).
// Invariants: an entry is printed once (follow remembers the last id it printed); a malformed
// filter is a usage error before anything is asked.
import type { AuditQuery, AuditRecord } from "../../../contracts/records.ts";
import { enumOption, parseOptions, stringOption } from "../args.ts";
import type { CliHost } from "../cli-host.ts";
import { cliError } from "../errors.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP } from "../open-host.ts";
import { TARGET_OPTIONS, TARGET_OPTIONS_HELP, withAdminTarget } from "../target.ts";
import type { CliCommand, CliIO } from "../types.ts";

const KINDS = ["capability", "plugin", "tool", "admin"] as const;
const AGE = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** An ISO time, or an age before now (`10m`), as ISO. */
function timeOption(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined) return undefined;
  const age = AGE.exec(raw);
  if (age !== null)
    return new Date(Date.now() - Number(age[1]) * UNIT_MS[age[2] as keyof typeof UNIT_MS]).toISOString();
  const at = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(at.getTime()))
    throw cliError(
      "AIRLOCK_CLI_USAGE",
      `--${name} takes an ISO time or an age such as 10m, 2h, 7d (got ${JSON.stringify(raw)})`,
    );
  return at.toISOString();
}

function intOption(
  raw: string | undefined,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max)
    throw cliError(
      "AIRLOCK_CLI_USAGE",
      `--${name} must be a whole number ${min}–${max} (got ${JSON.stringify(raw)})`,
    );
  return n;
}

function outcome(e: AuditRecord): string {
  if (!e.allowed) return `refused ${e.error ?? ""}`.trimEnd();
  if (e.success === false) return `failed ${e.error ?? ""}`.trimEnd();
  return "ok";
}

function line(e: AuditRecord, json: boolean): string {
  if (json) return `${JSON.stringify(e)}\n`;
  const tool = e.plugin !== null && e.tool !== null ? `${e.plugin}:${e.tool}` : (e.tool ?? e.plugin ?? "-");
  const who = `${e.agent ?? "-"} ${tool}`;
  const ms = e.durationMs === null ? "" : ` ${e.durationMs}ms`;
  return `${e.at}  ${e.kind.padEnd(10)} ${e.action.padEnd(22)} ${who}  ${outcome(e)}${ms}\n`;
}

async function follow(
  host: CliHost,
  query: AuditQuery,
  after: number,
  io: CliIO,
  json: boolean,
  everyMs: number,
) {
  let last = after;
  const stopped = new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  for (;;) {
    const wake = new Promise<"tick">((resolve) => setTimeout(() => resolve("tick"), everyMs));
    if ((await Promise.race([wake, stopped])) !== "tick") return;
    const fresh = (await host.queryAudit({ ...query, limit: 1000 })).filter((e) => e.id > last).reverse();
    for (const entry of fresh) io.stdout(line(entry, json));
    last = fresh[fresh.length - 1]?.id ?? last;
  }
}

export const auditCommand: CliCommand = {
  path: ["audit"],
  summary: "Show the audit log (filters, --follow, --json)",
  help: `Usage: airlock audit [--agent SLUG] [--plugin NS] [--tool NS:TOOL] [--kind KIND] [--since T] [--until T] [--limit N] [--follow] [--json] [options]

Prints audit entries oldest first: time, kind, action, agent, tool, outcome (ok, failed CODE,
refused CODE) and duration. Every tool call, capability use, plugin log line and operator
action is there (the console's Audit page shows the same entries).

Options:
  --agent SLUG       Only this agent's entries.
  --plugin NS        Only this plugin's entries.
  --tool NS:TOOL     Only this tool's entries (NS:TOOL, or a tool name alone).
  --kind KIND        capability, plugin, tool or admin.
  --since T          From this time: ISO 8601 (2026-12-07T09:00:00Z) or an age (30s, 10m, 2h, 7d).
  --until T          Up to this time (same forms).
  --limit N          The newest N entries (default 50, at most 1000).
  --follow           Keep printing new entries until interrupted (Ctrl-C).
  --interval SECS    How often --follow asks (default 2).
${HOST_OPTIONS_HELP}
${TARGET_OPTIONS_HELP}
  --json             One JSON object per line.

Example:
  airlock audit --agent support-bot --kind tool --since 1h --follow
`,
  async run(args, io) {
    const parsed = parseOptions(args, {
      ...HOST_OPTIONS,
      ...TARGET_OPTIONS,
      json: { type: "boolean" },
      agent: { type: "string" },
      plugin: { type: "string" },
      tool: { type: "string" },
      kind: { type: "string" },
      since: { type: "string" },
      until: { type: "string" },
      limit: { type: "string" },
      follow: { type: "boolean" },
      interval: { type: "string" },
    });
    const query: AuditQuery = {};
    for (const key of ["agent", "plugin", "tool"] as const) {
      const value = stringOption(parsed, key);
      if (value !== undefined) query[key] = value;
    }
    // Entries name the tool within its plugin: --tool ns:tool (or ns__tool) filters on both.
    const qualified = /^([^:_]+)(?::|__)(.+)$/.exec(query.tool ?? "");
    if (qualified !== null) {
      query.plugin = qualified[1] as string;
      query.tool = qualified[2] as string;
    }
    if (stringOption(parsed, "kind") !== undefined) query.kind = enumOption(parsed, "kind", KINDS, "tool");
    const since = timeOption(stringOption(parsed, "since"), "since");
    const until = timeOption(stringOption(parsed, "until"), "until");
    if (since !== undefined) query.since = since;
    if (until !== undefined) query.until = until;
    const limit = intOption(stringOption(parsed, "limit"), "limit", 1, 1000, 50);
    const everyMs = intOption(stringOption(parsed, "interval"), "interval", 1, 3600, 2) * 1000;
    const json = parsed.values.json === true;
    await withAdminTarget(parsed, io, async (host) => {
      const entries = (await host.queryAudit({ ...query, limit })).reverse();
      for (const entry of entries) io.stdout(line(entry, json));
      if (!json && entries.length === 0 && parsed.values.follow !== true)
        io.stdout("No audit entries match.\n");
      if (parsed.values.follow === true) {
        const { until: _, ...open } = query;
        // From the newest entry of the log, shown or not: older ones never print late.
        const newest = (await host.queryAudit({ limit: 1 }))[0]?.id ?? 0;
        await follow(host, open, newest, io, json, everyMs);
      }
    });
    return 0;
  },
};
