// Code mode's two tools as the model sees them (search_tools, run_code: their descriptions and
// input schemas, which name the operator's limits and the run's namespaces) and search_tools'
// answer: TypeScript declarations of the matching tools (declarations.ts).
// Invariants: search_tools describes only the tools it is handed (host-tools.ts hands it the
// run's tools that code may call); bad input is a result with AIRLOCK_CODE_INPUT_INVALID, never
// a throw.
import type { ToolResult } from "@airlock/sdk";
import type { ModelTool } from "../../contracts/host.ts";
import { briefOf, declarationsOf, searchTools } from "./declarations.ts";
import type { CodeModeSettings } from "./settings.ts";

export const SEARCH_TOOLS_ID = "airlock:search_tools";
export const RUN_CODE_ID = "airlock:run_code";

export function searchToolsTool(): ModelTool {
  return {
    id: SEARCH_TOOLS_ID,
    wireName: "search_tools",
    description:
      "Find tools to call from run_code: answers the matching tools as TypeScript declarations (detail 'names': one line each).",
    inputSchema: {
      type: "object",
      properties: {
        query: {
          type: "string",
          description: "Words naming what you want to do (empty or '*': every tool).",
        },
        detail: {
          type: "string",
          enum: ["names", "full"],
          description: "'full' (default): declarations; 'names': one line each.",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 50,
          description: "At most this many tools (default 8).",
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    annotations: { title: "Search tools", readOnlyHint: true },
  };
}

export function runCodeTool(settings: CodeModeSettings, namespaces: string[]): ModelTool {
  const l = settings.limits;
  return {
    id: RUN_CODE_ID,
    wireName: "run_code",
    description:
      "Run JavaScript or TypeScript (types stripped) as an async function body. " +
      "`await tools.<namespace>.<tool>(input)` calls your tools (see search_tools) and returns their structured result; a failed call throws an Error with `code`. " +
      "`return` JSON; console.log is returned too. No fetch; timers end with the call. " +
      (settings.scratch
        ? `\`await scratch.get(key)\`, \`scratch.set(key, json)\`, \`scratch.delete(key)\`, \`scratch.keys()\` keep values for this conversation (${l.scratchTtlSeconds} s, ${l.scratchMaxKeys} keys, ${l.scratchMaxValueBytes} bytes each). `
        : "No state between calls. ") +
      `Limits: ${l.maxInnerCalls} calls, ${l.cpuMs} ms CPU, ${l.wallMs} ms. ` +
      `Namespaces: ${namespaces.length === 0 ? "none" : namespaces.join(", ")}.`,
    inputSchema: {
      type: "object",
      properties: {
        code: { type: "string" },
        ...(settings.snippets
          ? {
              saveAs: {
                type: "object",
                description:
                  "Keep this code as a named snippet an operator may review and promote into a skill.",
                properties: {
                  name: { type: "string", pattern: "^[a-z][a-z0-9-]{0,47}$" },
                  description: { type: "string" },
                },
                required: ["name"],
                additionalProperties: false,
              },
            }
          : {}),
      },
      required: ["code"],
      additionalProperties: false,
    },
    annotations: { title: "Run code", readOnlyHint: false, openWorldHint: true },
  };
}

export function textResult(text: string, isError = false): ToolResult {
  return isError
    ? { content: [{ type: "text", text }], isError: true }
    : { content: [{ type: "text", text }] };
}

export function answerSearch(
  tools: readonly ModelTool[],
  input: unknown,
): { result: ToolResult; errorCode?: string } {
  const args = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  const unknown = Object.keys(args).filter((k) => k !== "query" && k !== "detail" && k !== "limit");
  const detail = args.detail ?? "full";
  const limit = args.limit ?? 8;
  if (
    typeof args.query !== "string" ||
    unknown.length > 0 ||
    (detail !== "full" && detail !== "names") ||
    typeof limit !== "number" ||
    !Number.isInteger(limit) ||
    limit < 1 ||
    limit > 50
  ) {
    return {
      result: textResult(
        'search_tools takes {"query": string, "detail"?: "names" | "full", "limit"?: 1–50}' +
          (unknown.length > 0 ? `; unknown: ${unknown.join(", ")}` : ""),
        true,
      ),
      errorCode: "AIRLOCK_CODE_INPUT_INVALID",
    };
  }
  const found = searchTools(tools, args.query, limit);
  if (found.length === 0) {
    return {
      result: textResult(
        `// No tool matches ${JSON.stringify(args.query)}. Try other words, or "*" for every tool.`,
      ),
    };
  }
  const head = `// ${found.length} of ${tools.length} tools\n`;
  const body = detail === "names" ? `${found.map(briefOf).join("\n")}\n` : declarationsOf(found);
  return { result: textResult(head + body) };
}
