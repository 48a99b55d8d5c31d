// The capability-checked bridge: issues one CallGrant per tool call and dispatches every ctx
// method call of plugin code to a capability handler, after re-checking the grant.
// Invariants: tokens are 32 random bytes (base64url), bound to one call, and dead once revoked;
// the grant's signal aborts on revoke; every dispatch is audited, allowed or denied (unless a
// capability audits itself), with the capability and method only — never args, values or bytes;
// a handler receives the grant the host issued, never anything the sandbox claims.
// Refusals: a thrown 403 and a soft denial (denials.ts) are audited allowed=false; past
// DENIAL_ROWS_PER_CALL denial rows in a call the rest are counted into one row at revoke. The
// capability-call cap ends the call: the first call past it is audited once (details.limit),
// the grant's signal aborts with AIRLOCK_BRIDGE_CALL_LIMIT and `end` tells the host; every
// later dispatch on that token is refused with the same code, counted, not written.
import { randomBytes, randomUUID } from "node:crypto";
import type { ConversationMessage, KnowledgeLevel } from "@airlock/sdk";
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import type { EgressRule, PluginManifest, ToolManifest } from "@airlock/sdk/manifest";
import type { AuditInput } from "../../state/store/types.ts";
import { DENIAL_ROWS_PER_CALL, isDenied, SUPPRESSED_ACTION } from "./denials.ts";
import { bridgeError } from "./errors.ts";
import type { ChildSpan, TraceParent } from "./span-port.ts";
import type {
  BridgeDispatch,
  CallGrant,
  CallNotification,
  Capability,
  ElicitChannel,
  OpenUrlChannel,
} from "./types.ts";

export interface BridgeOptions {
  capabilities: readonly Capability[];
  /** Writes one audit entry; a rejection refuses the call (AIRLOCK_BRIDGE_AUDIT_FAILED). */
  audit: (entry: AuditInput) => Promise<void>;
  /** Told of every refused capability call, written or counted (metrics: refusals by capability). */
  onRefusal?: (refusal: { capability: string; code: string }) => void;
  /** Runs a dispatch in an `airlock.capability` child span of its call's (span-port.ts); absent: no spans. */
  childSpan?: ChildSpan;
}

export interface GrantInput {
  /** Defaults to a random UUID. */
  callId?: string;
  agent: string;
  conversationId: string;
  /** See CallGrant.subject; default "". */
  subject?: string;
  manifest: PluginManifest;
  tool: string;
  knowledgeLevel: KnowledgeLevel | null;
  /** Egress in force; defaults to the manifest's (the host narrows it by operator policy). */
  egress?: readonly EgressRule[];
  conversation?: readonly ConversationMessage[];
  /** Capability calls allowed in this tool call (EffectiveLimits.capabilityCalls). */
  capabilityCalls: number;
  /** See CallGrant.maxInboundBytes. */
  maxInboundBytes?: number;
  notify?: (n: CallNotification) => void;
  /** ctx.elicit's way to the caller (CallGrant.elicit). */
  elicit?: ElicitChannel;
  /** A capability's way to send the person to a host page (CallGrant.openUrl). */
  openUrl?: OpenUrlChannel;
  /** A signal that ends the call early (the host's deadline); the grant's own signal follows it. */
  signal?: AbortSignal;
  /**
   * The call's own controller, used as the grant's (its signal is the grant's signal; the bridge
   * aborts it on revoke and at the capability-call cap) instead of a second controller following
   * `signal`, which is then ignored: one controller and no listener per call.
   */
  controller?: AbortController;
  /** Called once when the bridge ends the call itself (the capability-call cap), with the reason. */
  end?: (reason: AirlockError) => void;
  /** The call's span context: each dispatch runs in an `airlock.capability` child span. */
  trace?: TraceParent;
}

export interface Bridge {
  issueGrant(input: GrantInput): CallGrant;
  /** Ends a call: its token stops resolving and its signal aborts. Idempotent. */
  revoke(token: string): void;
  readonly dispatch: BridgeDispatch;
  /** Grants alive right now (for stats and leak tests). */
  readonly liveGrants: number;
}

/** Why a revoked grant's signal aborted: one shared, frozen error (no stack captured per call). */
const CALL_ENDED = Object.freeze(bridgeError("AIRLOCK_BRIDGE_TOKEN_INVALID", "the call has ended"));

/** A grant while issueGrant fills in its optional fields. */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** The secret keys a tool declares, one set per manifest tool (grants only read it). */
const declaredSecretSets = new WeakMap<ToolManifest, ReadonlySet<string>>();

function declaredSecretsOf(tool: ToolManifest): ReadonlySet<string> {
  let keys = declaredSecretSets.get(tool);
  if (keys === undefined) {
    keys = new Set(tool.requiredSecrets.map((s) => s.key));
    declaredSecretSets.set(tool, keys);
  }
  return keys;
}

/** Ended calls whose tokens are remembered, so that replays of them are bounded per call. */
export const ENDED_KEPT = 4096;

/** Random bytes drawn in blocks (one CSPRNG call per 64 tokens); each token uses fresh bytes once. */
const TOKEN_BYTES = 32;
let tokenPool = Buffer.alloc(0);
let tokenOffset = 0;
function newToken(): string {
  if (tokenOffset + TOKEN_BYTES > tokenPool.length) {
    tokenPool = randomBytes(TOKEN_BYTES * 64);
    tokenOffset = 0;
  }
  const token = tokenPool.toString("base64url", tokenOffset, tokenOffset + TOKEN_BYTES);
  tokenPool.fill(0, tokenOffset, tokenOffset + TOKEN_BYTES); // used bytes do not linger
  tokenOffset += TOKEN_BYTES;
  return token;
}

/** Whom a call's audit rows name: what stays of its grant once the call has ended. */
type AuditedAs = Pick<CallGrant, "agent" | "namespace" | "tool" | "conversationId">;

/** A call's denial counts: rows written, and denials counted but not written. */
interface Counted {
  grant: AuditedAs;
  denialRows: number;
  suppressed: number;
}

/**
 * An ended call, as `ended` remembers it: who it was and its counts, nothing else. Not its
 * grant: that holds the call's closures (notify, progress, the whole request), and 4,096 of them
 * kept alive made every young-generation GC copy megabytes under load (bench row 5).
 */
interface Tomb extends Counted {
  /** Set when the cap ended the call: a replay is refused with it. */
  ended: AirlockError | null;
}

interface Live extends Counted {
  grant: CallGrant;
  controller: AbortController;
  limit: number;
  end: ((reason: AirlockError) => void) | undefined;
  /** Set once the cap ended the call: later dispatches are refused with it, uncounted in rows. */
  ended: AirlockError | null;
  trace: TraceParent | undefined;
}

export function createBridge(options: BridgeOptions): Bridge {
  const capabilities = new Map<string, Capability>();
  for (const cap of options.capabilities) {
    if (capabilities.has(cap.name)) throw new Error(`capability ${cap.name} registered twice`);
    capabilities.set(cap.name, cap);
  }
  const childSpan = options.childSpan;
  const live = new Map<string, Live>();
  // Calls that ended, newest last (at most ENDED_KEPT): a dispatch with their token is refused,
  // attributed to the call and bounded like its other denials, so a plugin replaying a stashed
  // ctx cannot flood the audit either. The oldest is dropped with a summary row if it counted any.
  const ended = new Map<string, Tomb>();
  /** The tokens in `ended`, oldest at `endedNext` once the ring is full. */
  const endedOrder: Array<string | undefined> = new Array(ENDED_KEPT);
  let endedNext = 0;

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

  const refused = (action: string, code: string | null | undefined) => {
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

  /** Writes a denial row for this call, or counts it once the call's rows reach the cap. */
  async function auditDenial(entry: Counted, action: string, fields: Partial<AuditInput>): Promise<void> {
    refused(action, fields.error);
    if (entry.denialRows >= DENIAL_ROWS_PER_CALL) {
      entry.suppressed++;
      return;
    }
    entry.denialRows++;
    await audit(entry.grant, action, { allowed: false, success: false, ...fields });
  }

  /** The first call past the cap: audited once with the limit, then the call is ended. */
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
      await auditDenial(tomb, action, { error: error.code });
      throw error;
    }
    const { grant } = entry;
    if (entry.ended !== null) {
      entry.suppressed++;
      refused(action, entry.ended.code);
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
      await auditDenial(entry, action, { error: error.code });
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

  return {
    issueGrant(input) {
      const token = newToken();
      const controller = input.controller ?? new AbortController();
      const signal = controller.signal;
      // Follow the host's signal with one listener (cheaper per call than AbortSignal.any).
      const outer = input.controller === undefined ? input.signal : undefined;
      if (outer?.aborted === true) controller.abort(outer.reason);
      else outer?.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
      const tool = input.manifest.tools.find((t) => t.name === input.tool);
      if (!tool) {
        throw bridgeError(
          "AIRLOCK_BRIDGE_ARGS_INVALID",
          `${input.manifest.namespace} has no tool ${input.tool}`,
        );
      }
      const grant: Writable<CallGrant> = {
        callId: input.callId ?? randomUUID(),
        token,
        agent: input.agent,
        conversationId: input.conversationId,
        subject: input.subject ?? "",
        namespace: input.manifest.namespace,
        pluginVersion: input.manifest.version,
        tool: input.tool,
        toolId: `${input.manifest.namespace}:${input.tool}`,
        manifest: input.manifest,
        declaredSecrets: declaredSecretsOf(tool),
        knowledgeLevel: input.knowledgeLevel,
        egress: input.egress ?? input.manifest.egress,
        conversation: input.conversation ?? [],
        signal,
        capabilityCallsLeft: input.capabilityCalls,
        notify: input.notify ?? (() => undefined),
      };
      if (input.maxInboundBytes !== undefined) grant.maxInboundBytes = input.maxInboundBytes;
      if (input.elicit !== undefined) grant.elicit = input.elicit;
      if (input.openUrl !== undefined) grant.openUrl = input.openUrl;
      live.set(token, {
        grant,
        controller,
        limit: input.capabilityCalls,
        end: input.end,
        ended: null,
        denialRows: 0,
        suppressed: 0,
        trace: input.trace,
      });
      return grant;
    },
    revoke(token) {
      const entry = live.get(token);
      if (!entry) return;
      live.delete(token);
      entry.controller.abort(CALL_ENDED);
      summarise(entry);
      // the oldest remembered token makes room (a ring: no Map iteration, which would walk the
      // deleted slots at the Map's front on every call)
      const oldest = endedOrder[endedNext];
      if (oldest !== undefined) {
        const tomb = ended.get(oldest);
        ended.delete(oldest);
        if (tomb !== undefined) summarise(tomb);
      }
      endedOrder[endedNext] = token;
      endedNext = (endedNext + 1) % ENDED_KEPT;
      const { agent, namespace, tool, conversationId } = entry.grant;
      ended.set(token, {
        grant: { agent, namespace, tool, conversationId },
        ended: entry.ended,
        denialRows: entry.denialRows,
        suppressed: entry.suppressed,
      });
    },
    dispatch,
    get liveGrants() {
      return live.size;
    },
  };
}
