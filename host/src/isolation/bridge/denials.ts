// Soft refusals and the per-call bound on denial audit rows.
// A capability that must not tell the plugin *why* it got nothing (an undeclared secret reads
// `undefined`, an artifact handle it may not take reads `null`: no existence oracle) returns
// `denied(value, code, reason)`; the bridge hands the plugin `value` and audits a denial
// (allowed=false, error=code, details.reason). Invariants: the plugin-visible value is the same
// as for an innocent miss; the audit row names the reason, never a value or a secret; after
// DENIAL_ROWS_PER_CALL denial rows in one call further denials are counted, not written, and
// one summary row with the count is written when the call ends.

const DENIED: unique symbol = Symbol("airlock.denied");

export interface Denied {
  readonly [DENIED]: true;
  /** What the plugin sees. */
  readonly value: unknown;
  /** The AIRLOCK_* code the audit row carries. */
  readonly code: string;
  /** A short, non-secret reason (`key_not_declared`, `malformed`, `unavailable`). */
  readonly reason: string;
}

export function denied(value: unknown, code: string, reason: string): Denied {
  return { [DENIED]: true, value, code, reason };
}

export function isDenied(value: unknown): value is Denied {
  return typeof value === "object" && value !== null && (value as { [DENIED]?: unknown })[DENIED] === true;
}

/** Denial rows written per tool call; later ones are counted into one summary row. */
export const DENIAL_ROWS_PER_CALL = 16;

/** The audit action of the summary row a call with suppressed denials ends with. */
export const SUPPRESSED_ACTION = "bridge.denials_suppressed";
