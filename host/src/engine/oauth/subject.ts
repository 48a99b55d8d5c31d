// The end user a caller names for a tool call (CallOptions.subject: MCP `_meta["airlock/subject"]`,
// the calls route's `subject`, a task's stored options), and an operator names for a connect link
// or a disconnect (admin.ts). The pipeline checks it before anything else of the call runs
// (AIRLOCK_TOOL_SUBJECT_INVALID); the operator paths with AIRLOCK_OAUTH_SUBJECT_INVALID; the bridge then carries it in the call's grant, where ctx.oauth and the
// egress gate's bearer use it to pick that user's connection *of the call's agent*.
// Invariants: a subject is 1–128 characters of A–Z a–z 0–9 . _ @ + : - (no spaces, slashes,
// control or non-ASCII characters, so it reads the same in a log, an audit entry and a URL);
// "" and unset both mean the agent itself; anything else is refused.
// The subject is what the caller asserts: whoever may call the agent's tools may name any of its
// end users (as with conversationId); it never reaches another agent's connections.

export const SUBJECT_PATTERN = /^[A-Za-z0-9._@+:-]{1,128}$/;

/** Why `subject` is refused, or null when it is acceptable (unset or "" included). */
export function subjectRefusal(subject: unknown): string | null {
  if (subject === undefined || subject === "") return null;
  if (typeof subject === "string" && SUBJECT_PATTERN.test(subject)) return null;
  const shown = typeof subject === "string" ? `a ${subject.length}-character string` : typeof subject;
  return `The caller's subject (the end user the call is for) must be 1–128 characters of A–Z, a–z, 0–9 and . _ @ + : - (got ${shown}); fix the subject and call again.`;
}

/** A subject from a wire field (MCP _meta, a JSON body): a string as it is; any other value as a refused one. */
export function subjectFromWire(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : `<${typeof value}>`;
}
