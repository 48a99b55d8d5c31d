// Turns the knowledge accessor's answers into messages a model can act on.
// Invariants: a missing ctx.knowledge (the agent grants no access) and every `{ok:false}`
// refusal become a `{success:false, error}` result that says what to do next; nothing throws
// for policy.
import type { KnowledgeAccessor, KnowledgeMutation, ToolContext } from "@airlock/sdk";

export type Failure = { success: false; error: string };

const REFUSALS: Record<string, string> = {
  not_granted: "This agent's knowledge level does not allow writing. Ask an operator to raise it to 'write'.",
  not_owned:
    "That note was not written by the notes plugin, so it cannot be changed here. Create a new note instead.",
  not_found: "No note has that id. Use listNotes or searchNotes to find the right id.",
  too_large: "The note is too large. Split it into several smaller notes.",
  limit_reached: "The knowledge base is full. Ask an operator to remove old documents.",
};

export function noAccess(): Failure {
  return {
    success: false,
    error: "This agent has no knowledge base access. Ask an operator to grant a knowledge level.",
  };
}

/** ctx.knowledge, or a Failure telling the model why there is none. */
export function knowledgeOf(ctx: ToolContext): KnowledgeAccessor | Failure {
  return ctx.knowledge ?? noAccess();
}

export function isFailure(value: unknown): value is Failure {
  return typeof value === "object" && value !== null && (value as { success?: unknown }).success === false;
}

export function mutationResult(
  outcome: KnowledgeMutation,
  action: string,
): { success: true; result: { id: string; action: string } } | Failure {
  if (outcome.ok) return { success: true, result: { id: outcome.id, action } };
  return {
    success: false,
    error: REFUSALS[outcome.reason] ?? `The knowledge base refused: ${outcome.reason}.`,
  };
}

/** Titles become filenames: lowercase words joined by dashes, `.md`. */
export function filenameFor(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
  return `${slug || "note"}.md`;
}
