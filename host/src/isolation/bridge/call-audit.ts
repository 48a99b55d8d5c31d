// How the bridge writes what a capability call did: one audit row per dispatch, denials bounded
// per call, refusals told to the metrics listener, and the capability-call cap that ends a call.
// Contract: every helper here is called by the bridge's `dispatch` only (the one choke point);
// rows carry the capability and method only — never args, values or bytes.
// Invariants: a failed audit write refuses the call (AIRLOCK_BRIDGE_AUDIT_FAILED), except the
// summary row of an ended call, which nothing waits on (reported as a warning); past
// DENIAL_ROWS_PER_CALL denial rows in one call further denials are counted, not written, and
// `summarise` writes the count once; a refusal listener that throws never fails a call.
import type { AirlockError } from "@airlock/sdk/errors";
import type { AuditInput } from "../../state/store/types.ts";
import { DENIAL_ROWS_PER_CALL, SUPPRESSED_ACTION } from "./denials.ts";
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
  /** Writes a denial row for this call, or counts it once the call's rows reach the cap. */
  auditDenial(entry: Counted, action: string, fields: Partial<AuditInput>): Promise<void>;
  /** The first call past the cap: audited once with the limit, then the call is ended. */
  endAtLimit(entry: Live, action: string): Promise<never>;
  /** Writes the one summary row of a call's counted denials, if it counted any. */
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

  async function auditDenial(entry: Counted, action: string, fields: Partial<AuditInput>): Promise<void> {
    refused(action, fields.error);
    if (entry.denialRows >= DENIAL_ROWS_PER_CALL) {
      entry.suppressed++;
      return;
    }
    entry.denialRows++;
    await audit(entry.grant, action, { allowed: false, success: false, ...fields });
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
    await audit(entry.grant, action, {
      allowed: false,
      success: false,
      error: error.code,
      details: { name: "capabilityCalls", limit: entry.limit },
    });
    throw error;
  }

  function summarise(entry: Counted): void {
    if (entry.suppressed === 0) return;
    const suppressed = entry.suppressed;
    entry.suppressed = 0;
    // The call has ended: nothing waits on this write, so a failure is reported, not thrown.
    audit(entry.grant, SUPPRESSED_ACTION, {
      allowed: false,
      success: false,
      error: "AIRLOCK_BRIDGE_DENIALS_SUPPRESSED",
      details: { suppressed, rowsWritten: entry.denialRows },
    }).catch((error: unknown) => {
      process.emitWarning(`bridge: ${String(error)}`, "AirlockWarning");
    });
  }

  return { audit, refused, deny, auditDenial, endAtLimit, summarise };
}
