// Soft refusals, and how a call's denials are counted and written (the tally).
// A capability that must not tell the plugin *why* it got nothing (an undeclared secret reads
// `undefined`, an artifact handle it may not take reads `null`: no existence oracle) returns
// `denied(value, code, reason)`; the bridge hands the plugin `value` and audits a denial
// (allowed=false, error=code, details.reason). Invariants: the plugin-visible value is the same
// as for an innocent miss; the audit row names the reason, never a value or a secret.
// The tally: every denial of a call is counted by its kind (the ctx method, the code and the
// reason); the first denial of a kind the call has not shown yet is always written in detail,
// and so are the next ones up to DENIAL_ROWS_PER_KIND of that kind; past that they are counted
// only, and the call ends with one summary row holding every kind's full count. A flood of one
// kind therefore never hides a denial of another kind. The kinds a call can show are bounded
// (the registered ctx methods × their codes × reasons; a method nobody registered counts as
// "*"), and DENIAL_KINDS_PER_CALL bounds the tally's memory whatever a worker sends.

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

/** Denial rows written per kind in one call; later ones of that kind are counted into the summary. */
export const DENIAL_ROWS_PER_KIND = 16;

/**
 * Kinds a call's tally holds apart. Far above what the ctx surface can produce (about 20
 * methods, each with a handful of codes); past it (a worker forging capability names) the
 * rest are counted together under one kind ("*", "*"), so the tally stays bounded.
 */
export const DENIAL_KINDS_PER_CALL = 128;

/** One kind of denial in one call: its ctx method, code and reason, how often, rows written. */
export interface DenialKind {
  readonly action: string;
  readonly error: string;
  readonly reason: string | null;
  count: number;
  written: number;
}

/** A call's denials by kind, in the order the kinds first appeared. */
export interface DenialTally {
  readonly kinds: Map<string, DenialKind>;
  /** Denials counted but not written since the last summary row. */
  pending: number;
}

/** The tally's entry for (action, error, reason), made on first sight ("*" once the tally is full). */
function kindOf(tally: DenialTally, action: string, error: string, reason: string | null): DenialKind {
  const key = `${action}\n${error}\n${reason ?? ""}`;
  let kind = tally.kinds.get(key);
  if (kind !== undefined) return kind;
  if (tally.kinds.size >= DENIAL_KINDS_PER_CALL) {
    kind = tally.kinds.get("*");
    if (kind === undefined) {
      kind = { action: "*", error: "*", reason: null, count: 0, written: 0 };
      tally.kinds.set("*", kind);
    }
    return kind;
  }
  kind = { action, error, reason, count: 0, written: 0 };
  tally.kinds.set(key, kind);
  return kind;
}

/**
 * Counts one denial of (action, error, reason); true when it is to be written in detail (the
 * first DENIAL_ROWS_PER_KIND of its kind), false when it is only counted (pending a summary).
 */
export function countDenial(
  tally: DenialTally,
  action: string,
  error: string,
  reason: string | null,
): boolean {
  const kind = kindOf(tally, action, error, reason);
  kind.count++;
  if (kind.written < DENIAL_ROWS_PER_KIND) {
    kind.written++;
    return true;
  }
  tally.pending++;
  return false;
}

/** Counts one denial never written in detail (the call has ended: the row that ended it says why). */
export function countOnly(tally: DenialTally, action: string, error: string, times = 1): void {
  kindOf(tally, action, error, null).count += times;
  tally.pending += times;
}

/** The summary row's details: totals and every kind's full count (written: rows in detail). */
export function summaryOf(tally: DenialTally): Record<string, unknown> {
  let denials = 0;
  let rowsWritten = 0;
  const kinds: Array<Record<string, unknown>> = [];
  for (const k of tally.kinds.values()) {
    denials += k.count;
    rowsWritten += k.written;
    kinds.push({
      action: k.action,
      error: k.error,
      ...(k.reason === null ? {} : { reason: k.reason }),
      count: k.count,
      written: k.written,
    });
  }
  return { denials, rowsWritten, suppressed: denials - rowsWritten, kinds };
}

/** The audit action of the summary row a call with suppressed denials ends with. */
export const SUPPRESSED_ACTION = "bridge.denials_suppressed";
