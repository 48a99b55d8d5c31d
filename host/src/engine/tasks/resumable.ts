// Which tasks another replica may run again when the replica running them dies: the one decision,
// in one place, so that what makes a call safe to repeat can change: read-only as derived from
// the tool's per-tool grants when it declares `uses` (engine/catalogue/served-tool.ts), else its
// read-only annotation.
// Invariants: only a read-only tool (derived from its `uses`; without them, `readOnlyHint: true`
// in its manifest, or an operator's read-only pin for a remote server's tool; a remote server's own hint is never
// trusted, engine/remote/definitions.ts) is resumable; an unknown tool is not; the decision is
// made when the task starts and recorded in its row, and made again before a resumed call runs
// (a tool upgraded meanwhile to a version that is not read-only is not run again).
import type { ToolAnnotations, ToolUses } from "@airlock/sdk/manifest";
import { isReadOnly } from "../catalogue/served-tool.ts";

/** What the decision reads of a tool: its annotations and per-tool grants (a catalogue entry's `tool`). */
export interface ResumableToolFacts {
  annotations?: ToolAnnotations;
  uses?: ToolUses;
}

/** True when a task of this tool may be run again from its durable record after its replica died. */
export function taskIsResumable(tool: ResumableToolFacts | undefined): boolean {
  if (tool === undefined) return false;
  return isReadOnly({
    annotations: tool.annotations ?? {},
    ...(tool.uses === undefined ? {} : { uses: tool.uses }),
  });
}
