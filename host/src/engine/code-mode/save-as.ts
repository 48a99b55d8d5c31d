// run_code's `saveAs`: `{"code": ..., "saveAs": {"name": "weekly-chart", "description": "..."}}`
// keeps the code as a named snippet of the agent (snippets.ts) once the run succeeds.
// Invariants: with snippets off, or a malformed saveAs, nothing runs (AIRLOCK_CODE_SNIPPETS_OFF,
// AIRLOCK_CODE_SNIPPET_INVALID); a failed run saves nothing; a save refused after a successful
// run (a promoted snippet, the count cap) leaves the run's result as it is and says why in
// `snippetError` — the code already ran, its result is not turned into a failure.
import { hasCode, type ToolResult } from "@airlock/sdk";
import type { Store } from "../../state/store/types.ts";
import { codeModeError } from "./errors.ts";
import type { CodeModeSettings } from "./settings.ts";
import { checkSnippetMeta, saveSnippet } from "./snippets.ts";

export interface SaveAs {
  name: unknown;
  description?: unknown;
}

interface Report {
  result: ToolResult;
  errorCode?: string;
}

function refused(code: string, message: string): Report {
  return {
    result: { content: [{ type: "text", text: `${code}: ${message}` }], isError: true },
    errorCode: code,
  };
}

/** Runs `run` (the run_code call) under the input's saveAs, if any. */
export async function withSaveAs<R extends Report>(
  store: Store,
  agent: string,
  callId: string,
  settings: CodeModeSettings,
  input: unknown,
  run: () => Promise<R>,
): Promise<R | Report> {
  const raw =
    typeof input === "object" && input !== null ? (input as { saveAs?: unknown }).saveAs : undefined;
  if (raw === undefined) return run();
  if (!settings.snippets) {
    return refused(
      "AIRLOCK_CODE_SNIPPETS_OFF",
      "saving snippets is off for this agent (an operator turns it on); call run_code without saveAs",
    );
  }
  const saveAs = raw as SaveAs;
  const shapeOk =
    typeof raw === "object" &&
    raw !== null &&
    !Array.isArray(raw) &&
    Object.keys(raw).every((k) => k === "name" || k === "description") &&
    typeof saveAs.name === "string";
  if (!shapeOk) {
    return refused("AIRLOCK_CODE_SNIPPET_INVALID", 'saveAs is {"name": "<a-z0-9->", "description"?: string}');
  }
  try {
    checkSnippetMeta(saveAs.name, saveAs.description);
  } catch (error) {
    if (hasCode(error)) return refused(error.code, error.message);
    throw error;
  }
  const code = (input as { code?: unknown }).code;
  const report = await run();
  if (report.errorCode !== undefined) return report;
  let note: Record<string, unknown>;
  try {
    const saved = await saveSnippet(store, agent, {
      name: saveAs.name,
      description: saveAs.description,
      code,
      savedBy: "run_code",
      callId,
      maxCodeBytes: settings.limits.maxCodeBytes,
    });
    note = { savedAs: saved.name };
  } catch (error) {
    if (!hasCode(error)) throw codeModeError("AIRLOCK_CODE_FAILED", "the snippet could not be saved");
    note = { snippetError: { code: error.code, message: error.message } };
  }
  const structured = { ...((report.result.structuredContent ?? {}) as Record<string, unknown>), ...note };
  return {
    ...report,
    result: { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured },
  };
}
