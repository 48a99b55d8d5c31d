// Adapts the bridge (host/src/isolation/bridge/bridge.ts) to the pipeline's GrantIssuer, and narrows a
// plugin's declared egress by the operator's policy before it goes into the grant.
// Invariants: narrowing only removes rules, never adds or widens one; a namespace the policy
// record does not name reaches nothing; the egress gate applies the same policy again at
// request time (defence in depth), so this narrowing is what the grant shows, not the only check.
import type { EgressRule } from "@airlock/sdk/manifest";
import type { Bridge, GrantInput } from "../../isolation/bridge/bridge.ts";
import type { EgressPolicy } from "../../isolation/egress/types.ts";
import type { GrantIssuer } from "./deps.ts";

function patternCovers(pattern: string, host: string): boolean {
  if (pattern === "*") return true;
  if (pattern === host) return true;
  if (pattern.startsWith("*.")) {
    const suffix = pattern.slice(1); // ".example.com"
    // A wildcard rule is covered only by the same or a broader wildcard.
    return host.startsWith("*.") ? host.slice(1).endsWith(suffix) : host.endsWith(suffix);
  }
  return false;
}

/** The manifest's egress rules the operator's policy allows for this namespace. */
export function narrowEgress(
  namespace: string,
  rules: readonly EgressRule[],
  policy: EgressPolicy,
): EgressRule[] {
  const hosts = policy.hosts;
  if (hosts === undefined) return rules.map((r) => ({ ...r }));
  if (typeof hosts === "function")
    return rules.filter((r) => hosts(namespace, r.host)).map((r) => ({ ...r }));
  const patterns = Object.hasOwn(hosts, namespace) ? (hosts[namespace] ?? []) : [];
  return rules.filter((r) => patterns.some((p) => patternCovers(p, r.host))).map((r) => ({ ...r }));
}

/**
 * A quarter of the plugin's heap: data a capability copies into the isolate (a response body)
 * must leave room for the copy's decoding and for the plugin's own work.
 */
export function inboundBudget(memoryMb: number): number {
  return Math.floor((memoryMb * 1024 * 1024) / 4);
}

export function bridgeGrantIssuer(bridge: Bridge, policy: EgressPolicy): GrantIssuer {
  return {
    issue(request) {
      const input: GrantInput = {
        callId: request.callId,
        agent: request.agent,
        conversationId: request.conversationId,
        subject: request.subject,
        manifest: request.plugin.manifest,
        tool: request.tool.name,
        knowledgeLevel: request.knowledgeLevel,
        egress: narrowEgress(request.plugin.namespace, request.plugin.manifest.egress, policy),
        conversation: request.conversation,
        capabilityCalls: request.limits.capabilityCalls,
        maxInboundBytes: inboundBudget(request.limits.memoryMb),
        notify: request.notify,
        signal: request.signal,
      };
      if (request.controller !== undefined) input.controller = request.controller;
      if (request.end !== undefined) input.end = request.end;
      if (request.elicit !== undefined) input.elicit = request.elicit;
      if (request.openUrl !== undefined) input.openUrl = request.openUrl;
      if (request.trace !== undefined) input.trace = request.trace;
      return bridge.issueGrant(input);
    },
    revoke: (token) => bridge.revoke(token),
    dispatch: bridge.dispatch,
  };
}
