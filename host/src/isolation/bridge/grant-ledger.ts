// The bridge's book of calls: the grants alive right now and a bounded memory of ended ones.
// Contract: `issue` turns a GrantInput into the one CallGrant of a tool call under a fresh token;
// `retire` ends it (its signal aborts with CALL_ENDED) and moves what its audit rows need into
// `ended`, a ring of at most ENDED_KEPT tombs, so that a replayed token is still attributed to
// its call and its denials are tallied with the call's others (denials.ts).
// Invariants: tokens are 32 fresh CSPRNG bytes (base64url), each byte used once and zeroed after;
// a tomb keeps who the call was and its counts, never the grant (its closures would keep the
// whole request alive); a tomb pushed out of the ring is handed to `summarise` first.
import { randomBytes, randomUUID } from "node:crypto";
import type { ConversationMessage, KnowledgeLevel } from "@airlock/sdk";
import type { AirlockError } from "@airlock/sdk/errors";
import type { EgressRule, PluginManifest } from "@airlock/sdk/manifest";
import type { DenialTally } from "./denials.ts";
import { bridgeError } from "./errors.ts";
import type { TraceParent } from "./span-port.ts";
import { egressForUses, toolGrantsOf } from "./tool-uses.ts";
import type { CallGrant, CallNotification, ElicitChannel, OpenUrlChannel } from "./types.ts";

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

/** Ended calls whose tokens are remembered, so that replays of them are bounded per call. */
export const ENDED_KEPT = 4096;

/** Why a revoked grant's signal aborted: one shared, frozen error (no stack captured per call). */
const CALL_ENDED = Object.freeze(bridgeError("AIRLOCK_BRIDGE_TOKEN_INVALID", "the call has ended"));

/** A grant while issueGrant fills in its optional fields. */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

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
export type AuditedAs = Pick<CallGrant, "agent" | "namespace" | "tool" | "conversationId">;

/** A call's denials, tallied by kind (denials.ts); null until its first denial. */
export interface Counted {
  grant: AuditedAs;
  denials: DenialTally | null;
}

/**
 * An ended call, as `ended` remembers it: who it was and its counts, nothing else. Not its
 * grant: that holds the call's closures (notify, progress, the whole request), and 4,096 of them
 * kept alive made every young-generation GC copy megabytes under load (bench row 5).
 */
export interface Tomb extends Counted {
  /** Set when the cap ended the call: a replay is refused with it. */
  ended: AirlockError | null;
}

export interface Live extends Counted {
  grant: CallGrant;
  controller: AbortController;
  limit: number;
  end: ((reason: AirlockError) => void) | undefined;
  /** Set once the cap ended the call: later dispatches are refused with it, uncounted in rows. */
  ended: AirlockError | null;
  trace: TraceParent | undefined;
}

export interface GrantLedger {
  /** Calls alive, by token. */
  readonly live: ReadonlyMap<string, Live>;
  /** Calls ended, by token, newest last (at most ENDED_KEPT). */
  readonly ended: ReadonlyMap<string, Tomb>;
  issue(input: GrantInput): CallGrant;
  /** Ends the call of `token` if it is alive; idempotent. */
  retire(token: string): void;
}

/** `summarise` writes the summary row of a call's counted denials (at revoke and at eviction). */
export function createGrantLedger(summarise: (entry: Counted) => void): GrantLedger {
  const live = new Map<string, Live>();
  // Calls that ended, newest last (at most ENDED_KEPT): a dispatch with their token is refused,
  // attributed to the call and bounded like its other denials, so a plugin replaying a stashed
  // ctx cannot flood the audit either. The oldest is dropped with a summary row if it counted any.
  const ended = new Map<string, Tomb>();
  /** The tokens in `ended`, oldest at `endedNext` once the ring is full. */
  const endedOrder: Array<string | undefined> = new Array(ENDED_KEPT);
  let endedNext = 0;

  function issue(input: GrantInput): CallGrant {
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
    const { uses, declaredSecrets } = toolGrantsOf(tool);
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
      declaredSecrets,
      uses,
      knowledgeLevel: input.knowledgeLevel,
      egress: egressForUses(input.egress ?? input.manifest.egress, uses),
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
      denials: null,
      trace: input.trace,
    });
    return grant;
  }

  function retire(token: string): void {
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
      denials: entry.denials,
    });
  }

  return { live, ended, issue, retire };
}
