// One tool call through the pipeline, in DESIGN.md's order:
//   the caller's subject (oauth/subject.ts) → snapshot check → still enabled, secrets present →
//   beforeToolCall hooks → approval (tools not annotated readOnlyHint, unless auto-approved) →
//   input size + JSON Schema validation → grant →
//   sandbox call under a wall deadline → output schema validation → result cap → grant revoked →
//   afterToolCall hooks → audit (kind "tool") and events (tool.started/completed/failed).
// Invariants: this function never rejects — every failure (a refusal, a block, a denial, a
// throwing or looping tool, a sandbox failure) is a ToolCallOutcome whose result has isError
// and a message the model can act on; a grant issued for the call is always revoked.
import { randomUUID } from "node:crypto";
import { normalizeToolResult, type ToolResult } from "@airlock/sdk";
import type { CallOptions, ToolCallOutcome } from "../../contracts/host.ts";
import { missingSecrets } from "../catalogue/agent-tools.ts";
import { canonicalToolId } from "../catalogue/catalogue.ts";
import { subjectRefusal } from "../oauth/subject.ts";
import { approvalStep, secretsStep } from "../people/pipeline-steps.ts";
import type { RunContext, Stop } from "./call-types.ts";
import type { PipelineDeps } from "./deps.ts";
import type { PipelineErrorCode } from "./errors.ts";
import { executeInSandbox } from "./execute.ts";
import { inputRefusal } from "./input-safety.ts";
import { fillOmittedNullables } from "./omitted-nullables.ts";

const stop = (code: PipelineErrorCode, message: string, blocked = false): Stop => ({
  code,
  message,
  blocked,
});

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A plain-JSON copy (what crosses into the sandbox anyway) and its UTF-8 size; undefined when
 * not serialisable.
 */
function plainJson(value: unknown): { value: unknown; bytes: number; text: string } | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined; // a cycle or a BigInt: not JSON, the caller refuses the input
  }
  return text === undefined
    ? undefined
    : { value: JSON.parse(text), bytes: Buffer.byteLength(text, "utf8"), text };
}

function describeAvailable(run: RunContext): string {
  const ids = [...run.snapshot.keys()];
  if (ids.length === 0) return "This run exposes no tools.";
  const shown = ids.slice(0, 30).join(", ");
  return `Tools available in this run: ${shown}${ids.length > 30 ? `, … (${ids.length} in all)` : ""}.`;
}

export async function invokeTool(
  deps: PipelineDeps,
  run: RunContext,
  rawName: string,
  rawInput: unknown,
  options: CallOptions,
): Promise<ToolCallOutcome> {
  const callId = `call_${randomUUID()}`;
  const started = performance.now();
  const subjectProblem = subjectRefusal(options.subject);
  const id = canonicalToolId(rawName);
  const entry = id === undefined ? undefined : run.snapshot.get(id);
  const toolName = id ?? String(rawName).slice(0, 200);
  const presentation = entry?.tool.presentation;
  const base = { runId: run.id, callId, agent: run.agent, toolName };
  // Audit rows name the plugin and its bare tool, like the bridge's capability rows.
  const auditTool = entry?.tool.name ?? toolName;
  deps.events.emit("tool.started", presentation === undefined ? base : { ...base, presentation });

  // Until stage 1 passes, hooks and audit see an empty input; then a plain-JSON copy of it.
  let input: Record<string, unknown> = {};
  let outcome: { result: ToolResult } | Stop;
  try {
    outcome = await pipeline();
  } catch (error) {
    // The stages turn expected failures into Stops; this is the net for the unexpected.
    deps.report(`tool call ${toolName}`, error);
    outcome = stop("AIRLOCK_TOOL_FAILED", "the host failed while running this tool; try again later");
  }
  const durationMs = Math.round(performance.now() - started);
  return finish(outcome, durationMs);

  async function pipeline(): Promise<{ result: ToolResult } | Stop> {
    if (deps.closed()) return stop("AIRLOCK_HOST_CLOSED", "The host is shutting down; no tool can run now.");
    if (subjectProblem !== null) return stop("AIRLOCK_TOOL_SUBJECT_INVALID", subjectProblem);
    if (entry === undefined || id === undefined) {
      return stop(
        "AIRLOCK_TOOL_NOT_EXPOSED",
        `Tool "${toolName}" is not exposed in this run. ${describeAvailable(run)}`,
      );
    }
    const plain = plainJson(rawInput ?? {});
    if (plain === undefined || !isPlainObject(plain.value)) {
      return stop(
        "AIRLOCK_TOOL_INPUT_INVALID",
        `Invalid input for ${toolName}: input: expected a JSON object`,
      );
    }
    const unsafe = inputRefusal(toolName, plain.text);
    if (unsafe !== null) return stop(unsafe.code, unsafe.message);
    input = plain.value;
    let inputBytes = plain.bytes;
    const current = deps.catalogue.get(id);
    if (current === undefined) {
      return stop("AIRLOCK_TOOL_UNAVAILABLE", `Tool ${toolName} was uninstalled after this run started.`);
    }
    const state = await deps.agentStates.get(run.agent);
    if (current.tool.harness === null && !state.enabled.has(id)) {
      return stop("AIRLOCK_TOOL_DISABLED", `Tool ${toolName} was disabled for this agent by an operator.`);
    }
    const missing = missingSecrets(current, state.secretKeys);
    const supplied =
      missing.length > 0
        ? await secretsStep(deps, { run, entry: current, toolName, callId, input }, missing, options)
        : true;
    if (typeof supplied === "object") return supplied;
    if (!supplied) {
      return stop(
        "AIRLOCK_TOOL_SECRET_MISSING",
        `Tool ${toolName} cannot run: an operator must set the secret(s) ${missing.join(", ")}.`,
      );
    }

    if (deps.hooks.beforeCount > 0) {
      const hooked = await deps.hooks.runBefore({ agent: run.agent, runId: run.id, toolName, input });
      if (hooked.kind === "blocked") return stop("AIRLOCK_TOOL_BLOCKED", hooked.reason, true);
      if (hooked.kind === "failed")
        return stop("AIRLOCK_HOOK_FAILED", `Call blocked: ${hooked.message}`, true);
      const rewritten = plainJson(hooked.input);
      if (rewritten === undefined || !isPlainObject(rewritten.value)) {
        return stop(
          "AIRLOCK_HOOK_FAILED",
          "Call blocked: a beforeToolCall hook rewrote the input to non-JSON data",
          true,
        );
      }
      input = rewritten.value;
      inputBytes = rewritten.bytes;
    }

    // The agent's policy may let the person at the client decide, or run it unasked (people/).
    const person = await approvalStep(deps, { run, entry: current, toolName, callId, input }, options);
    if (typeof person === "object") return person;
    if (person === "operator") {
      const decision = await deps.approvals.request(
        { runId: run.id, agent: run.agent, toolName, input },
        options.signal,
        (approval) => {
          const event = {
            approvalId: approval.id,
            runId: run.id,
            agent: run.agent,
            toolName,
            input: approval.input,
          };
          deps.events.emit(
            "permission.required",
            presentation === undefined ? event : { ...event, presentation },
          );
        },
      );
      if (!decision.approved) {
        if ("cancelled" in decision)
          return stop("AIRLOCK_TOOL_CANCELLED", "The call was cancelled while awaiting approval.");
        return stop("AIRLOCK_APPROVAL_DENIED", `The call was not approved: ${decision.reason}`);
      }
    }

    const limits = deps.loader.limitsFor(current.plugin);
    if (inputBytes > limits.maxInputBytes) {
      return stop(
        "AIRLOCK_TOOL_INPUT_TOO_LARGE",
        `Input for ${toolName} is ${inputBytes} bytes; the limit is maxInputBytes = ${limits.maxInputBytes} bytes. Send less data.`,
      );
    }
    input = fillOmittedNullables(current.tool.inputSchema, input) as typeof input;
    const checked = deps.validator.check(
      `${id}@${current.version}#in`,
      current.tool.inputSchema,
      input,
      "input",
    );
    if (!checked.ok) {
      return stop(
        "AIRLOCK_TOOL_INPUT_INVALID",
        `Invalid input for ${toolName}: ${checked.message}. Fix these and call the tool again.`,
      );
    }

    const executed = await executeInSandbox(deps, {
      callId,
      run,
      entry: current,
      input,
      limits,
      agentLevel: state.agent.knowledgeLevel,
      options,
      emitProgress: (notification) => deps.events.emit("tool.progress", { ...base, notification }),
    });
    if ("code" in executed) return executed;
    const result = normalizeToolResult(executed.result);

    if (current.tool.outputSchema !== undefined && result.isError !== true) {
      const out = deps.validator.check(
        `${id}@${current.version}#out`,
        current.tool.outputSchema,
        result.structuredContent,
        "output",
      );
      if (!out.ok) {
        return stop(
          "AIRLOCK_TOOL_OUTPUT_INVALID",
          `Tool ${toolName} returned a result that does not match its output schema (${out.message}).`,
        );
      }
    }
    const resultBytes = Buffer.byteLength(JSON.stringify(result), "utf8");
    if (resultBytes > limits.maxResultBytes) {
      return stop(
        "AIRLOCK_TOOL_RESULT_TOO_LARGE",
        `Tool ${toolName} produced ${resultBytes} bytes; the limit is maxResultBytes = ${limits.maxResultBytes} bytes. Ask for less.`,
      );
    }
    return { result };
  }

  async function runAfterHooks(
    error: { code: string; message: string } | undefined,
    result: ToolResult,
    durationMs: number,
    blocked: boolean,
  ): Promise<void> {
    await deps.hooks.runAfter(
      {
        agent: run.agent,
        runId: run.id,
        toolName,
        input: structuredClone(input),
        ...(error === undefined ? { result: structuredClone(result) } : { error }),
        blocked,
        durationMs,
      },
      (hookError) => {
        deps.report(`afterToolCall hook for ${toolName}`, hookError);
        void deps.audit({
          agent: run.agent,
          plugin: entry?.namespace ?? null,
          tool: auditTool,
          conversationId: run.conversationId,
          kind: "tool",
          action: "hook.after_failed",
          allowed: true,
          success: false,
          error: hookError instanceof Error ? hookError.message : String(hookError),
          durationMs: null,
          details: { runId: run.id, callId },
        });
      },
    );
  }

  async function finish(done: { result: ToolResult } | Stop, durationMs: number): Promise<ToolCallOutcome> {
    const failed = "code" in done;
    const blocked = failed && done.blocked === true;
    const result: ToolResult = failed
      ? { content: [{ type: "text", text: done.message }], isError: true }
      : done.result;
    const error = failed ? { code: String(done.code), message: done.message } : undefined;

    if (deps.hooks.afterCount > 0) await runAfterHooks(error, result, durationMs, blocked);

    const details: Record<string, unknown> = {
      runId: run.id,
      callId,
      version: entry?.version ?? null,
      blocked,
    };
    if (options.parentCallId !== undefined) details.parentCallId = options.parentCallId;
    // the end user named (a refused one is not repeated: it may be anything)
    if (options.subject !== undefined && options.subject !== "" && subjectProblem === null)
      details.subject = options.subject;
    await deps.audit({
      agent: run.agent,
      plugin: entry?.namespace ?? null,
      tool: auditTool,
      conversationId: run.conversationId,
      kind: "tool",
      action: "call",
      allowed: !failed || !REFUSALS.has(String(done.code)),
      success: !failed && result.isError !== true,
      error: error?.code ?? null,
      durationMs,
      details,
    });

    const withPresentation = <T extends object>(event: T) =>
      presentation === undefined ? event : { ...event, presentation };
    if (error === undefined) {
      deps.events.emit(
        "tool.completed",
        withPresentation({ ...base, isError: result.isError === true, durationMs }),
      );
    } else {
      deps.events.emit("tool.failed", withPresentation({ ...base, error, blocked, durationMs }));
    }
    const outcome: ToolCallOutcome = { callId, toolName, result, blocked, durationMs };
    if (error !== undefined) outcome.errorCode = error.code;
    else if (result.isError === true) outcome.errorCode = "AIRLOCK_TOOL_REPORTED_ERROR";
    return outcome;
  }
}

/** Codes that mean the call was refused before the tool ran (audited with allowed: false). */
const REFUSALS: ReadonlySet<string> = new Set([
  "AIRLOCK_TOOL_SUBJECT_INVALID",
  "AIRLOCK_TOOL_NOT_EXPOSED",
  "AIRLOCK_TOOL_DISABLED",
  "AIRLOCK_TOOL_SECRET_MISSING",
  "AIRLOCK_TOOL_UNAVAILABLE",
  "AIRLOCK_TOOL_BLOCKED",
  "AIRLOCK_HOOK_FAILED",
  "AIRLOCK_APPROVAL_DENIED",
  "AIRLOCK_TOOL_INPUT_INVALID",
  "AIRLOCK_TOOL_INPUT_TOO_LARGE",
  "AIRLOCK_TOOL_INPUT_NOT_UNICODE",
  "AIRLOCK_TOOL_INPUT_KEY_FORBIDDEN",
]);
