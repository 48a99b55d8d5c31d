// `airlock-plugin check [dir] [--manifest <file>]`: manifest validation and the strict-mode
// lint, reporting EVERY problem (the build stops at the first failing stage), exit 1 if any.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { composeRawManifest } from "../build/build-plugin.ts";
import { hasCode } from "../errors.ts";
import { formatViolation, type LintableTool, lintManifestTools } from "../lint/index.ts";
import { parseManifest } from "../manifest.ts";
import { parse, pluginDirOf, reportError, stringOption } from "./args.ts";
import { errorLine } from "./kit/report.ts";
import { EXIT, type PluginCliCommand } from "./types.ts";

interface Problem {
  path: string;
  message: string;
}

function manifestProblems(raw: unknown): Problem[] {
  try {
    parseManifest(raw);
    return [];
  } catch (err) {
    if (!hasCode(err, "AIRLOCK_MANIFEST_INVALID")) throw err;
    const issues = (err as { details?: { issues?: Problem[] } }).details?.issues;
    return issues ?? [{ path: "$", message: err.message }];
  }
}

function lintableTools(raw: unknown): LintableTool[] {
  const tools = (raw as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.filter(
    (t): t is LintableTool =>
      typeof t === "object" && t !== null && typeof (t as { name?: unknown }).name === "string",
  );
}

export const checkCommand: PluginCliCommand = {
  name: "check",
  summary: "run manifest validation and the strict-mode lint; exit 1 on any violation",
  help: `Usage: airlock-plugin check [dir]
       airlock-plugin check --manifest <airlock.json>

Validates the plugin at [dir] (default: the current directory) without writing anything:
it bundles and loads the code as \`build\` does, then reports EVERY problem at once:
  - manifest validation (AIRLOCK_MANIFEST_INVALID rules), each with its JSON path;
  - the strict-mode lint of every tool's input schema, each with its JSON path and fix:
    format       no format uri/email/uuid/date-time/date/time/ipv4/ipv6
    optional     no bare optional (every property required; nullable ones may be omitted)
    open-object  no open-ended object (additionalProperties true/{} or no properties)
    description  every property has a description
With --manifest it checks an existing airlock.json instead of the code.

Exit status: 0 when clean, 1 on any violation or when the code does not build, 2 on
wrong usage.

Options:
  --manifest <file>  check this manifest file instead of building [dir]
  -h, --help         show this help

Example:
  airlock-plugin check ./my-plugin
`,
  async run(args, io) {
    try {
      const parsed = parse(args, { manifest: { type: "string" } }, 1);
      if (parsed.help) {
        io.stdout(this.help);
        return EXIT.OK;
      }
      const manifestFile = stringOption(parsed, "manifest");
      const raw: unknown =
        manifestFile === undefined
          ? (await composeRawManifest(pluginDirOf(parsed, io))).raw
          : JSON.parse(await readFile(resolve(io.cwd, manifestFile), "utf8"));
      const problems = manifestProblems(raw);
      const violations = lintManifestTools({ tools: lintableTools(raw) });
      for (const p of problems) {
        io.stdout(
          `manifest ${p.path}: ${p.message}\n    fix: change the definePlugin/defineTool field that produces ${p.path}\n`,
        );
      }
      for (const v of violations) io.stdout(`${formatViolation(v)}\n`);
      const total = problems.length + violations.length;
      const name = raw as { namespace?: unknown; version?: unknown };
      if (total > 0) {
        io.stderr(
          errorLine(
            "AIRLOCK_SDK_LINT_FAILED",
            `${total} violation${total === 1 ? "" : "s"} (listed above) — apply each fix, then run check again`,
          ),
        );
        return EXIT.FAILED;
      }
      io.stdout(
        `ok ${String(name.namespace)}@${String(name.version)}: manifest valid, strict-mode lint clean\n`,
      );
      return EXIT.OK;
    } catch (err) {
      return reportError(err, io);
    }
  },
};
