// The capability-checked bridge: issues one CallGrant per tool call and dispatches every ctx
// method call of plugin code to a capability handler, after re-checking the grant.
// Invariants: tokens are 32 random bytes (base64url), bound to one call, and dead once revoked;
// the grant's signal aborts on revoke; every dispatch is audited, allowed or denied (unless a
// capability audits itself), with the capability and method only — never args, values or bytes;
// a handler receives the grant the host issued, never anything the sandbox claims.
import { randomBytes, randomUUID } from "node:crypto";
import type { ConversationMessage, KnowledgeLevel } from "@airlock/sdk";
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import type { EgressRule, PluginManifest } from "@airlock/sdk/manifest";
import type { AuditInput } from "../store/types.ts";
import { bridgeError } from "./errors.ts";
import type { BridgeDispatch, CallGrant, CallNotification, Capability } from "./types.ts";

export interface BridgeOptions {
  capabilities: readonly Capability[];
  /** Writes one audit entry; a rejection refuses the call (AIRLOCK_BRIDGE_AUDIT_FAILED). */
  audit: (entry: AuditInput) => Promise<void>;
}

export interface GrantInput {
  /** Defaults to a random UUID. */
  callId?: string;
  agent: string;
  conversationId: string;
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
  /** A signal that ends the call early (the host's deadline); the grant's own signal follows it. */
  signal?: AbortSignal;
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

interface Live {
  grant: CallGrant;
  controller: AbortController;
}

export function createBridge(options: BridgeOptions): Bridge {
  const capabilities = new Map<string, Capability>();
  for (const cap of options.capabilities) {
    if (capabilities.has(cap.name)) throw new Error(`capability ${cap.name} registered twice`);
    capabilities.set(cap.name, cap);
  }
  const live = new Map<string, Live>();

  async function audit(grant: CallGrant | null, action: string, fields: Partial<AuditInput>): Promise<void> {
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
    await audit(grant, action, { allowed: false, success: false, error: error.code });
    throw error;
  }

  const dispatch: BridgeDispatch = async (token, capability, method, args) => {
    const action = `${String(capability)}.${String(method)}`.slice(0, 200);
    const entry = typeof token === "string" ? live.get(token) : undefined;
    if (!entry)
      return deny(null, action, bridgeError("AIRLOCK_BRIDGE_TOKEN_INVALID", "this call token is not valid"));
    const { grant } = entry;
    if (grant.capabilityCallsLeft <= 0) {
      return deny(
        grant,
        action,
        bridgeError("AIRLOCK_BRIDGE_CALL_LIMIT", "this tool call used up its capability calls"),
      );
    }
    grant.capabilityCallsLeft--;
    const cap = typeof capability === "string" ? capabilities.get(capability) : undefined;
    const handler =
      cap && typeof method === "string" && Object.hasOwn(cap.methods, method)
        ? cap.methods[method]
        : undefined;
    if (!cap || !handler) {
      return deny(grant, action, bridgeError("AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY", `ctx has no ${action}`));
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
        await audit(grant, action, { success: false, error: wrapped.code, durationMs });
      }
      throw wrapped;
    }
    if (audited)
      await audit(grant, action, { success: true, durationMs: Math.round(performance.now() - started) });
    return value;
  };

  return {
    issueGrant(input) {
      const token = newToken();
      const controller = new AbortController();
      const signal = controller.signal;
      // Follow the host's signal with one listener (cheaper per call than AbortSignal.any).
      const outer = input.signal;
      if (outer?.aborted === true) controller.abort(outer.reason);
      else outer?.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
      const tool = input.manifest.tools.find((t) => t.name === input.tool);
      if (!tool) {
        throw bridgeError(
          "AIRLOCK_BRIDGE_ARGS_INVALID",
          `${input.manifest.namespace} has no tool ${input.tool}`,
        );
      }
      const grant: CallGrant = {
        callId: input.callId ?? randomUUID(),
        token,
        agent: input.agent,
        conversationId: input.conversationId,
        namespace: input.manifest.namespace,
        pluginVersion: input.manifest.version,
        tool: input.tool,
        toolId: `${input.manifest.namespace}:${input.tool}`,
        manifest: input.manifest,
        declaredSecrets: new Set(tool.requiredSecrets.map((s) => s.key)),
        knowledgeLevel: input.knowledgeLevel,
        egress: input.egress ?? input.manifest.egress,
        conversation: input.conversation ?? [],
        signal,
        capabilityCallsLeft: input.capabilityCalls,
        notify: input.notify ?? (() => undefined),
        ...(input.maxInboundBytes === undefined ? {} : { maxInboundBytes: input.maxInboundBytes }),
      };
      live.set(token, { grant, controller });
      return grant;
    },
    revoke(token) {
      const entry = live.get(token);
      if (!entry) return;
      live.delete(token);
      entry.controller.abort(CALL_ENDED);
    },
    dispatch,
    get liveGrants() {
      return live.size;
    },
  };
}
