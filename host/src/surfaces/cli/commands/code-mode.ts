// `airlock agents code-mode <slug> [on|off] [limits]`: shows or changes an agent's code mode
// (search_tools and run_code on its MCP endpoint; docs/code-mode.md), on the running host
// through its admin API or directly on a data directory, like the other `agents` commands.
import type { CodeModeChange, CodeModeSettings } from "../../../contracts/code-mode.ts";
import { CODE_MODE_LIMIT_RANGES } from "../../../index.ts";
import type { CliHost } from "../admin-client.ts";
import { type Parsed, parseOptions, requiredPositional } from "../args.ts";
import { cliError } from "../errors.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP, hostOptionsFrom, requireAgent } from "../open-host.ts";
import { resolveTarget, TARGET_OPTIONS, TARGET_OPTIONS_HELP, withCliHost } from "../target.ts";
import type { CliCommand, CliIO } from "../types.ts";

/** --cpu-ms → cpuMs, and so on for every limit. */
const LIMIT_FLAGS = Object.fromEntries(
  Object.keys(CODE_MODE_LIMIT_RANGES).map((name) => [
    name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
    name,
  ]),
) as Record<string, keyof typeof CODE_MODE_LIMIT_RANGES>;

const OPTIONS = {
  ...HOST_OPTIONS,
  ...TARGET_OPTIONS,
  json: { type: "boolean" },
  exclusive: { type: "boolean" },
  "no-exclusive": { type: "boolean" },
  scratch: { type: "boolean" },
  "no-scratch": { type: "boolean" },
  snippets: { type: "boolean" },
  "no-snippets": { type: "boolean" },
  ...Object.fromEntries(Object.keys(LIMIT_FLAGS).map((flag) => [flag, { type: "string" }])),
} as const;

const limitsHelp = Object.entries(LIMIT_FLAGS)
  .map(([flag, name]) => {
    const [min, max] = CODE_MODE_LIMIT_RANGES[name];
    const option = `  --${flag} N`.padEnd(27);
    const of = name.startsWith("scratch") ? "the scratch store" : "every run_code call";
    return `${option}${name} of ${of} (${min}–${max}).`;
  })
  .join("\n");

function describe(slug: string, s: CodeModeSettings): string {
  const limits = Object.entries(s.limits)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return `Code mode of ${slug}: ${s.enabled ? "on" : "off"}${s.exclusive ? " (exclusive)" : ""}\nScratch store: ${s.scratch ? "on" : "off"}; snippets: ${s.snippets ? "on" : "off"}\nLimits: ${limits}\n`;
}

function changeFrom(parsed: Parsed): CodeModeChange {
  const change: CodeModeChange = {};
  const state = parsed.positionals[1];
  if (state !== undefined) {
    if (state !== "on" && state !== "off") throw cliError("AIRLOCK_CLI_USAGE", "the state is on or off");
    change.enabled = state === "on";
  }
  if (parsed.values.exclusive === true) change.exclusive = true;
  if (parsed.values["no-exclusive"] === true) change.exclusive = false;
  if (parsed.values.scratch === true) change.scratch = true;
  if (parsed.values["no-scratch"] === true) change.scratch = false;
  if (parsed.values.snippets === true) change.snippets = true;
  if (parsed.values["no-snippets"] === true) change.snippets = false;
  const limits: Record<string, number> = {};
  for (const [flag, name] of Object.entries(LIMIT_FLAGS)) {
    const raw = parsed.values[flag];
    if (typeof raw !== "string") continue;
    if (!/^\d+$/.test(raw)) throw cliError("AIRLOCK_CLI_USAGE", `--${flag} takes a whole number`);
    limits[name] = Number(raw);
  }
  if (Object.keys(limits).length > 0) change.limits = limits;
  return change;
}

export const codeModeCommand: CliCommand = {
  path: ["agents", "code-mode"],
  summary: "Show or change an agent's code mode (search_tools and run_code)",
  help: `Usage: airlock agents code-mode <slug> [on|off] [options]

Shows the agent's code mode, or changes it: "on" also serves search_tools and run_code on the
agent's MCP endpoint and calls route (model-written code calling its tools, each call a full
pipeline call); "off" stops serving them. Limits not named are kept.

Options:
  --exclusive              List only search_tools and run_code to the model.
  --no-exclusive           List the agent's tools as well (the default).
  --scratch                Give run_code's code the per-conversation scratch store
                           (scratch.get/set/delete/keys; the scratch* limits bound it).
  --no-scratch             No scratch store (the default).
  --snippets               run_code may save its code as a named snippet (saveAs), which an
                           operator reviews and promotes into a skill (airlock agents snippets).
  --no-snippets            No snippets (the default).
${limitsHelp}
${HOST_OPTIONS_HELP}
${TARGET_OPTIONS_HELP}
  --json                   Print JSON.

Example:
  airlock agents code-mode support-bot on --max-inner-calls 20
`,
  async run(args, io: CliIO) {
    const parsed = parseOptions(args, OPTIONS, 2);
    const slug = requiredPositional(parsed, 0, "<slug>");
    const change = changeFrom(parsed);
    const settings = await withCliHost(
      resolveTarget(parsed, io),
      hostOptionsFrom(parsed, io, "in-process"),
      io,
      async (host: CliHost) => {
        await requireAgent(host, slug);
        return Object.keys(change).length === 0 ? host.getCodeMode(slug) : host.setCodeMode(slug, change);
      },
    );
    io.stdout(
      parsed.values.json === true ? `${JSON.stringify(settings, null, 2)}\n` : describe(slug, settings),
    );
    return 0;
  },
};
