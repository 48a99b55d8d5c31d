// Which tasks another replica may run again when the replica running them dies: the one decision,
// in one place, so that what makes a call safe to repeat can change (today the tool's read-only
// annotation; later, read-only as derived from the grants the call holds).
// Invariants: only a tool that declares itself read-only (`readOnlyHint: true` in its manifest,
// or an operator's read-only pin for a remote server's tool; a remote server's own hint is never
// trusted, engine/remote/definitions.ts) is resumable; an unknown tool is not; the decision is
// made when the task starts and recorded in its row, and made again before a resumed call runs
// (a tool upgraded meanwhile to a version that is not read-only is not run again).
import type { ToolAnnotations } from "@airlock/sdk/manifest";

/** What the decision reads of a tool: its annotations (a catalogue entry's `tool`). */
export interface ResumableToolFacts {
  annotations?: ToolAnnotations;
}

/** True when a task of this tool may be run again from its durable record after its replica died. */
export function taskIsResumable(tool: ResumableToolFacts | undefined): boolean {
  return tool?.annotations?.readOnlyHint === true;
}
