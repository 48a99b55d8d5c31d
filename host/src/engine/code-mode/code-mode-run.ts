// A run with code mode on: its listing gains search_tools and run_code (or, `exclusive`, shows
// only those two), and a call of either is answered here; every other call goes to the run as
// before. Both tools are audited (kind "tool", plugin "airlock") and raise tool.* events like any
// call; run_code's entry lists its inner calls, each of which has its own pipeline entry naming
// the run_code call as parentCallId.
// Invariants: code calls only the run's own non-harness tools (a harness tool is refused with
// AIRLOCK_CODE_HARNESS_TOOL, audited); search_tools describes exactly those; nothing here
// throws for a tool failure — it is an outcome with isError and errorCode.
import { randomUUID } from "node:crypto";
import type { ToolResult } from "@airlock/sdk";
import type { CallOptions, ModelTool, Run, ToolCallOutcome } from "../../contracts/host.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import { subjectRefusal } from "../oauth/subject.ts";
import type { EventBus } from "../pipeline/events.ts";
import { harnessOutcome } from "../pipeline/harness-outcome.ts";
import type { CodeSandbox } from "./code-sandbox.ts";
import { briefOf, declarationsOf, searchTools } from "./declarations.ts";
import { runCode } from "./run-code.ts";
import { withSaveAs } from "./save-as.ts";
import { createScratch } from "./scratch.ts";
import type { CodeModeSettings } from "./settings.ts";

export const SEARCH_TOOLS_ID = "airlock:search_tools";
export const RUN_CODE_ID = "airlock:run_code";

export interface CodeModeRunDeps {
  sandbox: CodeSandbox;
  /** The scratch store's rows (scratch.ts). */
  store: Store;
  events: EventBus;
  audit(entry: AuditInput): Promise<void>;
  /** Whether a tool id is a harness tool (never callable from code). */
  isHarness(toolId: string): boolean;
}

function codeToolOf(name: string): typeof SEARCH_TOOLS_ID | typeof RUN_CODE_ID | undefined {
  const bare = name.replace(/^airlock(?::|__)/, "");
  if (bare === "search_tools") return SEARCH_TOOLS_ID;
  if (bare === "run_code") return RUN_CODE_ID;
  return undefined;
}

function searchToolsTool(): ModelTool {
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

function runCodeTool(settings: CodeModeSettings, namespaces: string[]): ModelTool {
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

function textResult(text: string, isError = false): ToolResult {
  return isError
    ? { content: [{ type: "text", text }], isError: true }
    : { content: [{ type: "text", text }] };
}

function answerSearch(
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

/** The run as code mode serves it. */
export function codeModeRun(deps: CodeModeRunDeps, run: Run, settings: CodeModeSettings): Run {
  const callable = () => run.tools().filter((t) => !deps.isHarness(t.id));
  const namespaces = (): Record<string, string[]> => {
    const out: Record<string, string[]> = {};
    for (const t of callable()) {
      const at = t.id.indexOf(":");
      const ns = t.id.slice(0, at);
      out[ns] = [...(out[ns] ?? []), t.id.slice(at + 1)];
    }
    return out;
  };
  const listing = (): ModelTool[] => {
    const own = [searchToolsTool(), runCodeTool(settings, Object.keys(namespaces()).sort())];
    return settings.exclusive ? own : [...run.tools(), ...own];
  };

  async function callCodeTool(
    id: typeof SEARCH_TOOLS_ID | typeof RUN_CODE_ID,
    input: unknown,
    options: CallOptions,
  ): Promise<ToolCallOutcome> {
    const callId = `call_${randomUUID()}`;
    const started = performance.now();
    const base = { runId: run.id, callId, agent: run.agent, toolName: id };
    deps.events.emit("tool.started", base);
    let report: { result: ToolResult; errorCode?: string; calls?: unknown[] };
    let scratchOps = 0;
    const badSubject = subjectRefusal(options.subject);
    if (badSubject !== null) {
      // like the pipeline: a malformed end user refuses the call before anything of it runs
      report = { result: textResult(badSubject, true), errorCode: "AIRLOCK_TOOL_SUBJECT_INVALID" };
    } else if (id === SEARCH_TOOLS_ID) {
      report = answerSearch(callable(), input);
    } else {
      const waiting = new Map<string, number>();
      const offApproval = deps.events.on("permission.required", (event) => {
        if (event.runId !== run.id || !waiting.has(event.toolName)) return;
        const message = `run_code: ${event.toolName} waits for an operator's approval (approval ${event.approvalId}): decide it in the host's console (/admin) or with POST /api/approvals/${event.approvalId}`;
        options.onNotification?.({ type: "progress", progress: 0, message });
        options.onNotification?.({ type: "log", level: "info", message });
      });
      const scratch = createScratch({
        enabled: settings.scratch,
        store: deps.store,
        agent: run.agent,
        conversationId: run.conversationId,
        runId: run.id,
        callId,
        limits: settings.limits,
        audit: deps.audit,
      });
      try {
        report = await withSaveAs(deps.store, run.agent, callId, settings, input, () =>
          runCode(deps.sandbox, {
            run,
            callId,
            input,
            limits: settings.limits,
            options,
            scratch,
            scratchOn: settings.scratch,
            namespaces: namespaces(),
            refuse: (toolId) => {
              if (!deps.isHarness(toolId)) return null;
              const at = toolId.indexOf(":");
              // a refusal is audited like the pipeline's own, naming the run_code call
              void deps.audit({
                agent: run.agent,
                plugin: toolId.slice(0, at),
                tool: toolId.slice(at + 1),
                conversationId: run.conversationId,
                kind: "tool",
                action: "call",
                allowed: false,
                success: false,
                error: "AIRLOCK_CODE_HARNESS_TOOL",
                durationMs: 0,
                details: { runId: run.id, callId: null, parentCallId: callId },
              });
              return {
                code: "AIRLOCK_CODE_HARNESS_TOOL",
                message: `${toolId} is a harness tool; code calls only the agent's own tools`,
              };
            },
            onInnerStart: (toolId) => {
              waiting.set(toolId, (waiting.get(toolId) ?? 0) + 1);
              return () => {
                const n = (waiting.get(toolId) ?? 1) - 1;
                if (n === 0) waiting.delete(toolId);
                else waiting.set(toolId, n);
              };
            },
          }),
        );
      } finally {
        offApproval();
        scratchOps = scratch.ops;
      }
    }
    const durationMs = Math.round(performance.now() - started);
    const calls = report.calls ?? [];
    await deps.audit({
      agent: run.agent,
      plugin: "airlock",
      tool: id.slice("airlock:".length),
      conversationId: run.conversationId,
      kind: "tool",
      action: "call",
      allowed:
        report.errorCode !== "AIRLOCK_CODE_INPUT_INVALID" &&
        report.errorCode !== "AIRLOCK_TOOL_SUBJECT_INVALID",
      success: report.errorCode === undefined,
      error: report.errorCode ?? null,
      durationMs,
      details: {
        runId: run.id,
        callId,
        codeMode: true,
        ...(badSubject === null && options.subject !== undefined && options.subject !== ""
          ? { subject: options.subject }
          : {}),
        ...(id === RUN_CODE_ID
          ? { innerCallCount: calls.length, innerCalls: calls.slice(0, 100), scratchOps }
          : {}),
      },
    });
    return harnessOutcome(deps.events, base, report, durationMs);
  }

  return {
    id: run.id,
    agent: run.agent,
    conversationId: run.conversationId,
    tools: listing,
    call(toolName, input, options) {
      const own = typeof toolName === "string" ? codeToolOf(toolName) : undefined;
      return own === undefined ? run.call(toolName, input, options) : callCodeTool(own, input, options ?? {});
    },
  };
}
