// `airlock agents snippets <slug> [list|show|save|promote|withdraw|delete] [name]`: an operator
// reviews an agent's saved run_code snippets (docs/code-mode.md, "Saved snippets") and promotes
// one into a skill of the agent, on the running host through its admin API or directly on a
// data directory, like the other `agents` commands.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Snippet, SnippetSummary } from "../../../contracts/code-mode.ts";
import type { CliHost } from "../admin-client.ts";
import { type Parsed, parseOptions, requiredPositional, stringOption } from "../args.ts";
import { cliError } from "../errors.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP, hostOptionsFrom, requireAgent } from "../open-host.ts";
import { resolveTarget, TARGET_OPTIONS, TARGET_OPTIONS_HELP, withCliHost } from "../target.ts";
import type { CliCommand, CliIO } from "../types.ts";

const OPTIONS = {
  ...HOST_OPTIONS,
  ...TARGET_OPTIONS,
  json: { type: "boolean" },
  file: { type: "string" },
  description: { type: "string" },
} as const;

const ACTIONS = ["list", "show", "save", "promote", "withdraw", "delete"] as const;
type Action = (typeof ACTIONS)[number];

function line(s: SnippetSummary): string {
  const who = s.savedBy === "run_code" ? `run_code ${s.callId ?? ""}`.trim() : "operator";
  return `${s.name}${s.promoted ? ` [skill airlock:skill:snippet-${s.name}]` : ""}\t${s.description || "-"}\tsaved ${s.savedAt} by ${who}`;
}

function shown(s: Snippet): string {
  return `${line(s)}\n--- code ---\n${s.code.endsWith("\n") ? s.code : `${s.code}\n`}`;
}

async function act(host: CliHost, action: Action, slug: string, parsed: Parsed, io: CliIO): Promise<unknown> {
  if (action === "list") return host.snippets.list(slug);
  const name = requiredPositional(parsed, 2, "<name>");
  switch (action) {
    case "show":
      return host.snippets.get(slug, name);
    case "save": {
      const file = stringOption(parsed, "file");
      if (file === undefined) throw cliError("AIRLOCK_CLI_USAGE", "save needs --file <code file>");
      const code = await readFile(resolve(io.cwd, file), "utf8");
      const description = stringOption(parsed, "description");
      return host.snippets.save(slug, name, description === undefined ? { code } : { code, description });
    }
    case "promote":
      return host.snippets.promote(slug, name, true);
    case "withdraw":
      return host.snippets.promote(slug, name, false);
    case "delete": {
      const deleted = await host.snippets.delete(slug, name);
      if (!deleted)
        throw cliError(
          "AIRLOCK_CLI_NOT_FOUND",
          `${slug} has no snippet ${JSON.stringify(name)} — nothing to delete (\`airlock agents snippets ${slug}\` lists them)`,
        );
      return { deleted };
    }
  }
}

export const snippetsCommand: CliCommand = {
  path: ["agents", "snippets"],
  summary: "Review an agent's saved run_code snippets and promote one into a skill",
  help: `Usage: airlock agents snippets <slug> [list|show|save|promote|withdraw|delete] [name] [options]

Code mode with snippets on lets run_code keep its code as a named snippet ("saveAs"). An
operator reviews them here: "list" (the default) shows each with who saved it and whether it is
a skill; "show" prints one with its code; "save" stores one from a file; "promote" makes it the
agent's skill airlock:skill:snippet-<name> (listed and read like plugin skills, an MCP prompt);
"withdraw" takes the skill back; "delete" removes the snippet.

Options:
  --file PATH              save: the code (JavaScript or TypeScript, as run_code takes it).
  --description TEXT       save: one line saying what it does (the skill's description).
${HOST_OPTIONS_HELP}
${TARGET_OPTIONS_HELP}
  --json                   Print JSON.

Example:
  airlock agents snippets support-bot show weekly-chart
`,
  async run(args, io: CliIO) {
    const parsed = parseOptions(args, OPTIONS, 3);
    const slug = requiredPositional(parsed, 0, "<slug>");
    const action = (parsed.positionals[1] ?? "list") as Action;
    if (!ACTIONS.includes(action))
      throw cliError("AIRLOCK_CLI_USAGE", `the action is one of ${ACTIONS.join(", ")}`);
    const answer = await withCliHost(
      resolveTarget(parsed, io),
      hostOptionsFrom(parsed, io, "in-process"),
      io,
      async (host: CliHost) => {
        await requireAgent(host, slug);
        return act(host, action, slug, parsed, io);
      },
    );
    if (parsed.values.json === true) io.stdout(`${JSON.stringify(answer, null, 2)}\n`);
    else if (action === "list") {
      const all = answer as SnippetSummary[];
      io.stdout(all.length === 0 ? `No snippets saved for ${slug}.\n` : `${all.map(line).join("\n")}\n`);
    } else if (action === "delete") io.stdout(`Deleted ${String(parsed.positionals[2])}.\n`);
    else io.stdout(action === "show" ? shown(answer as Snippet) : `${line(answer as Snippet)}\n`);
    return 0;
  },
};
