// The `fetch` capability: ctx.fetch's host side, the one gate all plugin network traffic
// goes through. `createFetchCapability(deps)` returns a Capability with one method,
// `request(url, init)` → {status, statusText, headers, url, redirected, body: Uint8Array}.
// Invariants: each request is audited exactly once by this module (kind "capability", action
// "fetch.request", host/method/status/bytes/duration, never a body, a path or a secret), so
// the bridge does not audit it again (auditedByBridge → false); policy refusals are audited
// with allowed=false; a failing audit write fails the request rather than going unrecorded.
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import type { AuditInput } from "../../state/store/types.ts";
import type { CallGrant, Capability } from "../bridge/types.ts";
import { compileAllowance } from "./address.ts";
import { fetchError, REFUSAL_CODES } from "./errors.ts";
import { type ExchangeDeps, type ExchangeTrace, runExchange } from "./exchange.ts";
import { systemResolver } from "./resolve.ts";
import { DEFAULT_FETCH_LIMITS, type FetchCapabilityOptions, type FetchLimits } from "./types.ts";

export const FETCH_CAPABILITY = "fetch";
export const FETCH_AUDIT_ACTION = "fetch.request";

function resolveLimits(given: Partial<FetchLimits> | undefined): FetchLimits {
  const limits: FetchLimits = { ...DEFAULT_FETCH_LIMITS };
  for (const [name, value] of Object.entries(given ?? {}) as Array<[keyof FetchLimits, unknown]>) {
    if (value === undefined) continue;
    if (!(name in DEFAULT_FETCH_LIMITS)) {
      throw fetchError("AIRLOCK_FETCH_POLICY_INVALID", `unknown fetch limit "${name}"`, { limit: name });
    }
    const min = name === "maxRedirects" ? 0 : 1;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
      throw fetchError("AIRLOCK_FETCH_POLICY_INVALID", `fetch limit ${name} must be an integer ≥ ${min}`, {
        limit: name,
      });
    }
    limits[name] = value;
  }
  return limits;
}

function resolveCa(ca: string | readonly string[] | undefined): readonly string[] | undefined {
  if (ca === undefined) return undefined;
  const list = typeof ca === "string" ? [ca] : [...ca];
  if (list.length === 0 || list.some((c) => typeof c !== "string" || !c.includes("BEGIN CERTIFICATE"))) {
    throw fetchError("AIRLOCK_FETCH_POLICY_INVALID", "tls.ca must be one or more PEM certificates");
  }
  return list;
}

function auditEntry(grant: CallGrant, trace: ExchangeTrace, durationMs: number, err: unknown): AuditInput {
  const code = err === undefined ? null : hasCode(err) ? err.code : "AIRLOCK_FETCH_NETWORK";
  const refused = code !== null && REFUSAL_CODES.has(code);
  const reason =
    err instanceof AirlockError && typeof err.details?.reason === "string" ? err.details.reason : undefined;
  return {
    agent: grant.agent,
    plugin: grant.namespace,
    tool: grant.tool,
    conversationId: grant.conversationId,
    kind: "capability",
    action: FETCH_AUDIT_ACTION,
    allowed: !refused,
    success: code === null,
    error: code,
    durationMs,
    details: {
      plugin: grant.namespace,
      tool: grant.toolId,
      host: trace.host,
      port: trace.port,
      method: trace.method,
      status: trace.status,
      bytes: trace.bytes,
      durationMs,
      redirects: trace.redirects,
      finalHost: trace.finalHost,
      ...(trace.oauth === null ? {} : { oauth: trace.oauth }),
      // whose connection the bearer was (the call's end user; absent: the agent's own)
      ...(trace.oauth === null || grant.subject === "" ? {} : { oauthSubject: grant.subject }),
      ...(refused ? { refused: code } : {}),
      ...(reason === undefined ? {} : { reason }),
    },
  };
}

export function createFetchCapability(options: FetchCapabilityOptions): Capability {
  const deps: ExchangeDeps = {
    secrets: options.secrets,
    resolver: options.resolver ?? systemResolver,
    allowance: compileAllowance(options.policy.allowPrivate),
    hosts: options.policy.hosts,
    limits: resolveLimits(options.limits),
    ca: resolveCa(options.tls?.ca),
    ...(options.bearer === undefined ? {} : { bearer: options.bearer }),
  };
  const audit = options.audit;

  async function request(grant: CallGrant, args: readonly unknown[]) {
    const started = performance.now();
    const trace: ExchangeTrace = {
      host: null,
      port: null,
      method: null,
      status: null,
      bytes: 0,
      redirects: 0,
      finalHost: null,
      oauth: null,
    };
    let failure: unknown;
    try {
      return await runExchange(grant, args, deps, trace);
    } catch (err) {
      failure =
        hasCode(err) && err.code.startsWith("AIRLOCK_")
          ? err
          : fetchError("AIRLOCK_FETCH_NETWORK", "the request failed", { reason: "internal" }, err);
      throw failure;
    } finally {
      await audit(auditEntry(grant, trace, Math.round(performance.now() - started), failure));
    }
  }

  return {
    name: FETCH_CAPABILITY,
    methods: { request },
    auditedByBridge: () => false,
  };
}
