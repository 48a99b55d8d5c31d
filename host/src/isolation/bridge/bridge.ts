// The capability-checked bridge: issues one CallGrant per tool call and dispatches every ctx
// method call of plugin code to a capability handler, after re-checking the grant.
// Invariants: tokens are 32 random bytes (base64url), bound to one call, and dead once revoked;
// the grant's signal aborts on revoke; every dispatch is audited, allowed or denied (unless a
// capability audits itself), with the capability and method only — never args, values or bytes;
// a handler receives the grant the host issued, never anything the sandbox claims; a tool that
// declares its own grants (`uses`) reaches nothing beyond them (tool-uses.ts: refused with
// AIRLOCK_GRANT_NOT_DECLARED before the handler runs, audited as a denial).
// Refusals: a thrown 403 and a soft denial (denials.ts) are audited allowed=false, tallied by
// kind: a kind the call has not shown yet is always written, past DENIAL_ROWS_PER_KIND rows of
// one kind the rest are counted into one summary row at revoke. The capability-call cap ends
// the call: the first call past it is audited once (details.limit), the grant's signal aborts
// with AIRLOCK_BRIDGE_CALL_LIMIT and `end` tells the host; every later dispatch on that token is
// refused with the same code, counted, not written.
// Layout: grant-ledger.ts issues and remembers the grants, call-audit.ts writes the rows; this
// file is the choke point itself — every ctx call of every plugin passes `dispatch` below.
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import { type CallAuditOptions, createCallAudit } from "./call-audit.ts";
import { isDenied } from "./denials.ts";
import { bridgeError } from "./errors.ts";
import { createGrantLedger, type GrantInput } from "./grant-ledger.ts";
import type { ChildSpan } from "./span-port.ts";
import { undeclaredUse } from "./tool-uses.ts";
import type { BridgeDispatch, CallGrant, Capability } from "./types.ts";

export { ENDED_KEPT, type GrantInput } from "./grant-ledger.ts";

export interface BridgeOptions extends CallAuditOptions {
  capabilities: readonly Capability[];
  /** Runs a dispatch in an `airlock.capability` child span of its call's (span-port.ts); absent: no spans. */
  childSpan?: ChildSpan;
}

export interface Bridge {
  issueGrant(input: GrantInput): CallGrant;
  /** Ends a call: its token stops resolving and its signal aborts. Idempotent. */
  revoke(token: string): void;
  readonly dispatch: BridgeDispatch;
  /** Grants alive right now (for stats and leak tests). */
  readonly liveGrants: number;
}

export function createBridge(options: BridgeOptions): Bridge {
  const capabilities = new Map<string, Capability>();
  for (const cap of options.capabilities) {
    if (capabilities.has(cap.name)) throw new Error(`capability ${cap.name} registered twice`);
    capabilities.set(cap.name, cap);
  }
  const childSpan = options.childSpan;
  const { audit, refused, deny, auditDenial, countEnded, endAtLimit, summarise } = createCallAudit(options);
  /** A dispatch's kind in the denial tally: its action when registered, else "*" (bounded). */
  const kindOf = (capability: unknown, method: unknown, action: string): string => {
    const cap = typeof capability === "string" ? capabilities.get(capability) : undefined;
    return cap !== undefined && typeof method === "string" && Object.hasOwn(cap.methods, method)
      ? action
      : "*";
  };
  const { live, ended, issue, retire } = createGrantLedger(summarise);

  const dispatch: BridgeDispatch = (token, capability, method, args) => {
    const parent = typeof token === "string" ? live.get(token)?.trace : undefined;
    if (parent === undefined || childSpan === undefined) return run(token, capability, method, args);
    return childSpan(
      parent,
      "airlock.capability",
      {
        "airlock.capability": String(capability).slice(0, 100),
        "airlock.method": String(method).slice(0, 100),
      },
      () => run(token, capability, method, args),
    );
  };

  const run: BridgeDispatch = async (token, capability, method, args) => {
    const action = `${String(capability)}.${String(method)}`.slice(0, 200);
    const entry = typeof token === "string" ? live.get(token) : undefined;
    if (!entry) {
      const tomb = typeof token === "string" ? ended.get(token) : undefined;
      const error =
        tomb?.ended ?? bridgeError("AIRLOCK_BRIDGE_TOKEN_INVALID", "this call token is not valid");
      if (tomb === undefined) return deny(null, action, error);
      await auditDenial(tomb, action, { error: error.code }, kindOf(capability, method, action));
      throw error;
    }
    const { grant } = entry;
    if (entry.ended !== null) {
      countEnded(entry, action, kindOf(capability, method, action), entry.ended.code);
      throw entry.ended;
    }
    if (grant.capabilityCallsLeft <= 0) return endAtLimit(entry, action);
    grant.capabilityCallsLeft--;
    const cap = typeof capability === "string" ? capabilities.get(capability) : undefined;
    const handler =
      cap && typeof method === "string" && Object.hasOwn(cap.methods, method)
        ? cap.methods[method]
        : undefined;
    if (!cap || !handler) {
      const error = bridgeError("AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY", `ctx has no ${action}`);
      await auditDenial(entry, action, { error: error.code }, "*");
      throw error;
    }
    const undeclared = undeclaredUse(grant, cap.name, method as string, Array.isArray(args) ? args : []);
    if (undeclared !== null) {
      const error = bridgeError(
        "AIRLOCK_GRANT_NOT_DECLARED",
        `${grant.toolId} may not call ${action}: ${undeclared.message} in the tool's uses`,
      );
      await auditDenial(entry, action, { error: error.code, details: { reason: undeclared.reason } });
      throw error;
    }
    const audited = cap.auditedByBridge?.(method) ?? true;
    const started = performance.now();
    let value: unknown;
    try {
      value = await handler(grant, Array.isArray(args) ? args : []);
    } catch (error) {
      const wrapped =
        error instanceof AirlockError
          ? error
          : hasCode(error) && error.code.startsWith("AIRLOCK_")
            ? new AirlockError(error.code, error.message)
            : bridgeError("AIRLOCK_BRIDGE_FAILED", `${action} failed`, undefined, error);
      if (audited) {
        const durationMs = Math.round(performance.now() - started);
        if (wrapped.status === 403) await auditDenial(entry, action, { error: wrapped.code, durationMs });
        else await audit(grant, action, { success: false, error: wrapped.code, durationMs });
      } else if (wrapped.status === 403) refused(action, wrapped.code); // audited by the capability itself
      throw wrapped;
    }
    if (isDenied(value)) {
      await auditDenial(entry, action, {
        error: value.code,
        durationMs: Math.round(performance.now() - started),
        details: { reason: value.reason },
      });
      return value.value;
    }
    if (audited)
      await audit(grant, action, { success: true, durationMs: Math.round(performance.now() - started) });
    return value;
  };

  // Calls the sandbox's fair-use meter refused before they reached `run`: past the cap, the call
  // ends (audited once, as at the cap) if the call that crossed it has not ended it yet, and the
  // rest are counted like later dispatches on an ended token; any other refusal is a denial of its
  // call, with its count.
  dispatch.refusedBefore = (token, capability, method, code, count) => {
    const entry = typeof token === "string" ? (live.get(token) ?? ended.get(token)) : undefined;
    if (entry === undefined || !Number.isSafeInteger(count) || count < 1) return;
    const action = `${String(capability)}.${String(method)}`.slice(0, 200);
    if (code === "AIRLOCK_BRIDGE_CALL_LIMIT") {
      // the call went past its cap before the one that crossed it was dispatched: it ends now
      const open = live.get(token);
      if (open !== undefined && open.ended === null) {
        endAtLimit(open, action).catch(() => undefined); // audited there; the rejection is the call's
        count--;
      }
      // the rest were refused in the sandbox, never sent: counted in the call's denial summary
      if (count > 0) countEnded(entry, action, action, code, count);
      return;
    }
    auditDenial(entry, action, { error: String(code), details: { refusedBy: "sandbox", count } }).catch(
      (error: unknown) => process.emitWarning(`bridge: ${String(error)}`, "AirlockWarning"),
    );
  };

  return {
    issueGrant: issue,
    revoke: retire,
    dispatch,
    get liveGrants() {
      return live.size;
    },
  };
}
