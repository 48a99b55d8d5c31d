// Code mode as host tools (executor "host", pipeline/executors/host.ts): for an agent whose
// operator turned code mode on, a run lists search_tools and run_code after its tools (only those
// two when `exclusive`), and a call of either passes the pipeline's stages like any tool (span,
// events, hooks, audit; docs/pipeline.md says which stages a host tool skips, and why). Their
// audit rows carry `codeMode: true`; run_code's also lists its inner calls and scratchOps, and
// each inner call is a full pipeline call through the run's inner Run, naming the run_code call
// as parentCallId.
// Invariants: code calls only the run's own non-harness tools (a harness tool is refused with
// AIRLOCK_CODE_HARNESS_TOOL, audited; a host tool is not exposed to code: the inner Run has
// none); search_tools describes exactly those; nothing here throws for a tool failure — it is
// an answer with errorCode.
import type { CallOptions, ModelTool } from "../../contracts/host.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import type { HostAnswer, HostCall, HostTool } from "../pipeline/call-types.ts";
import type { EventBus } from "../pipeline/events.ts";
import type { CodeSandbox } from "./code-sandbox.ts";
import type { CodeModeErrorCode } from "./errors.ts";
import { runCode } from "./run-code.ts";
import { withSaveAs } from "./save-as.ts";
import { createScratch } from "./scratch.ts";
import type { CodeModeSettings } from "./settings.ts";
import { answerSearch, runCodeTool, searchToolsTool } from "./tool-models.ts";

export { RUN_CODE_ID, SEARCH_TOOLS_ID } from "./tool-models.ts";

export interface CodeToolsDeps {
  sandbox: CodeSandbox;
  /** The scratch store's rows (scratch.ts). */
  store: Store;
  events: EventBus;
  audit(entry: AuditInput): Promise<void>;
  /** Whether a tool id is a harness tool (never callable from code). */
  isHarness(toolId: string): boolean;
}

function namespacesOf(tools: readonly ModelTool[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of tools) {
    const at = t.id.indexOf(":");
    const ns = t.id.slice(0, at);
    out[ns] = [...(out[ns] ?? []), t.id.slice(at + 1)];
  }
  return out;
}

/** A harness tool named by code: refused, and audited like the pipeline's own refusals. */
function refuseHarness(
  deps: CodeToolsDeps,
  call: HostCall,
  toolId: string,
): { code: CodeModeErrorCode; message: string } | null {
  if (!deps.isHarness(toolId)) return null;
  const { run, callId } = call;
  const at = toolId.indexOf(":");
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
}

async function answerRunCode(
  deps: CodeToolsDeps,
  settings: CodeModeSettings,
  namespaces: Record<string, string[]>,
  input: Record<string, unknown>,
  options: CallOptions,
  call: HostCall,
): Promise<HostAnswer> {
  const { run, callId } = call;
  // An inner call waiting for an operator's approval is told to the client as progress.
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
  let report: Awaited<ReturnType<typeof withSaveAs>> & { calls?: unknown[] };
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
        namespaces,
        refuse: (toolId) => refuseHarness(deps, call, toolId),
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
  }
  const calls = report.calls ?? [];
  const details = { innerCallCount: calls.length, innerCalls: calls.slice(0, 100), scratchOps: scratch.ops };
  return report.errorCode === undefined
    ? { result: report.result, details }
    : { result: report.result, errorCode: report.errorCode, details };
}

/** search_tools and run_code for a run whose tools, as the model sees them, are `served`. */
export function codeModeHostTools(
  deps: CodeToolsDeps,
  settings: CodeModeSettings,
  served: readonly ModelTool[],
): HostTool[] {
  // model-written code is the model's: a tool only a UI may call (MCP Apps visibility ["app"]) is left out
  const callable = served.filter(
    (t) => !deps.isHarness(t.id) && (t.ui?.visibility === undefined || t.ui.visibility.includes("model")),
  );
  const namespaces = namespacesOf(callable);
  const exclusive = settings.exclusive;
  return [
    {
      model: searchToolsTool(),
      auditDetails: { codeMode: true },
      exclusive,
      answer: async (input) => answerSearch(callable, input),
    },
    {
      model: runCodeTool(settings, Object.keys(namespaces).sort()),
      // a run_code call refused before it ran (its subject, a hook) made no inner call
      auditDetails: { codeMode: true, innerCallCount: 0, innerCalls: [], scratchOps: 0 },
      exclusive,
      answer: (input, options, call) => answerRunCode(deps, settings, namespaces, input, options, call),
    },
  ];
}
