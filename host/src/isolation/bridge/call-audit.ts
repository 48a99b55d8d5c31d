// How the bridge writes what a capability call did: one audit row per dispatch, denials tallied
// by kind per call, refusals told to the metrics listener, and the capability-call cap that ends
// a call.
// Contract: every helper here is called by the bridge's `dispatch` only (the one choke point);
// rows carry the capability and method only — never args, values or bytes.
// Invariants: a failed audit write refuses the call (AIRLOCK_BRIDGE_AUDIT_FAILED), except the
// summary row of an ended call, which nothing waits on (reported as a warning); every denial is
// counted by kind (denials.ts): a kind the call has not shown yet is always written in detail,
// past DENIAL_ROWS_PER_KIND rows of one kind the rest are counted only, and `summarise` writes
// every kind's full count in one row; a refusal listener that throws never fails a call.
import type { AirlockError } from "@airlock/sdk/errors";
import type { AuditInput } from "../../state/store/types.ts";
import { countDenial, countOnly, type DenialTally, SUPPRESSED_ACTION, summaryOf } from "./denials.ts";
import { bridgeError } from "./errors.ts";
import type { AuditedAs, Counted, Live } from "./grant-ledger.ts";
import type { CallGrant } from "./types.ts";

export interface CallAuditOptions {
  /** Writes one audit entry; a rejection refuses the call (AIRLOCK_BRIDGE_AUDIT_FAILED). */
  audit: (entry: AuditInput) => Promise<void>;
  /** Told of every refused capability call, written or counted (metrics: refusals by capability). */
  onRefusal?: (refusal: { capability: string; code: string }) => void;
}

export interface CallAudit {
  /** Writes one capability row for `grant` (null: a token nobody issued). */
  audit(grant: AuditedAs | null, action: string, fields: Partial<AuditInput>): Promise<void>;
  /** Tells the refusal listener, if any, of one refused capability call. */
  refused(action: string, code: string | null | undefined): void;
  /** Audits a refusal unbounded (no call to count it against) and throws `error`. */
  deny(grant: CallGrant | null, action: string, error: AirlockError): Promise<never>;
  /**
   * Tallies a denial of this call under its kind (`kind`: the ctx method, "*" for one nobody
   * registered; with the code and reason) and writes it in detail unless its kind is past
   * DENIAL_ROWS_PER_KIND rows.
   */
  auditDenial(entry: Counted, action: string, fields: Partial<AuditInput>, kind?: string): Promise<void>;
  /** A ctx call of a call the cap already ended: refused, tallied, never written in detail. */
  /** Counts `times` refusals of one kind in the call's tally (written in its summary row). */
  countEnded(entry: Counted, action: string, kind: string, code: string, times?: number): void;
  /** The first call past the cap: audited once with the limit, then the call is ended. */
  endAtLimit(entry: Live, action: string): Promise<never>;
  /** Writes the one summary row of a call's denials (every kind's count), if any were only counted. */
  summarise(entry: Counted): void;
}

export function createCallAudit(options: CallAuditOptions): CallAudit {
  const refused = (action: string, code: string | null | undefined): void => {
    if (options.onRefusal === undefined) return;
    try {
      options.onRefusal({ capability: action.split(".", 1)[0] ?? action, code: code ?? "unknown" });
    } catch (error) {
      process.emitWarning(`bridge refusal listener: ${String(error)}`, "AirlockWarning");
    }
  };

  async function audit(grant: AuditedAs | null, action: string, fields: Partial<AuditInput>): Promise<void> {
    try {
      await options.audit({
        agent: grant?.agent ?? null,
        plugin: grant?.namespace ?? null,
        tool: grant?.tool ?? null,
        conversationId: grant?.conversationId ?? null,
        kind: "capability",
        action,
        allowed: true,
        success: null,
        error: null,
        durationMs: null,
        details: null,
        ...fields,
      });
    } catch (error) {
      throw bridgeError("AIRLOCK_BRIDGE_AUDIT_FAILED", `could not audit ${action}`, undefined, error);
    }
  }

  async function deny(grant: CallGrant | null, action: string, error: AirlockError): Promise<never> {
    refused(action, error.code);
    await audit(grant, action, { allowed: false, success: false, error: error.code });
    throw error;
  }

  const tallyOf = (entry: Counted): DenialTally => {
    entry.denials ??= { kinds: new Map(), pending: 0 };
    return entry.denials;
  };

  async function auditDenial(
    entry: Counted,
    action: string,
    fields: Partial<AuditInput>,
    kind = action,
  ): Promise<void> {
    refused(action, fields.error);
    const reason = (fields.details as { reason?: unknown } | null | undefined)?.reason;
    const code = fields.error ?? "unknown";
    if (!countDenial(tallyOf(entry), kind, code, typeof reason === "string" ? reason : null)) return;
    await audit(entry.grant, action, { allowed: false, success: false, ...fields });
  }

  function countEnded(entry: Counted, action: string, kind: string, code: string, times = 1): void {
    refused(action, code);
    countOnly(tallyOf(entry), kind, code, times);
  }

  async function endAtLimit(entry: Live, action: string): Promise<never> {
    const error = bridgeError(
      "AIRLOCK_BRIDGE_CALL_LIMIT",
      `this tool call used up its ${entry.limit} capability calls (capabilityCalls = ${entry.limit}); the call is ended`,
      { name: "capabilityCalls", limit: entry.limit },
    );
    entry.ended = error;
    entry.grant.capabilityCallsLeft = 0;
    entry.controller.abort(error);
    entry.end?.(error);
    refused(action, error.code);
    countDenial(tallyOf(entry), action, error.code, null); // its one row, written below
    await audit(entry.grant, action, {
      allowed: false,
      success: false,
      error: error.code,
      details: { name: "capabilityCalls", limit: entry.limit },
    });
    throw error;
  }

  function summarise(entry: Counted): void {
    const tally = entry.denials;
    if (tally === null || tally.pending === 0) return;
    tally.pending = 0;
    // The call has ended: nothing waits on this write, so a failure is reported, not thrown.
    audit(entry.grant, SUPPRESSED_ACTION, {
      allowed: false,
      success: false,
      error: "AIRLOCK_BRIDGE_DENIALS_SUPPRESSED",
      details: summaryOf(tally),
    }).catch((error: unknown) => {
      process.emitWarning(`bridge: ${String(error)}`, "AirlockWarning");
    });
  }

  return { audit, refused, deny, auditDenial, countEnded, endAtLimit, summarise };
}
