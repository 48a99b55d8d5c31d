// Per-tool grants at the bridge: what a call of a tool that declared `uses` (sdk/src/tool-uses.ts)
// may reach, checked on every dispatch before the capability's handler runs.
// Contract: `undeclaredUse(grant, capability, method, args)` is null when the call's tool is in
// the legacy mode (no `uses`: the plugin's grants, as before) or when `uses` covers the request,
// else what is missing: a fixed reason (the audit row's, one of a bounded set) and a message
// naming the host or provider asked for (the plugin's, which it already knows); the bridge refuses the request with AIRLOCK_GRANT_NOT_DECLARED and audits
// the denial. `toolGrantsOf` and `egressForUses` shape the grant the ledger issues: a declared
// tool reads its requiredSecrets plus `uses.secrets`, and its egress is only its declared hosts.
// Invariants: fail closed: a method of a governed capability not in the table below needs a
// declaration no tool can make; ungoverned capabilities (audit, progress, log, elicit) are the
// same for every tool; this narrows, never widens: the agent's knowledge level, the operator's
// egress policy and every capability's own checks still apply after it.
import { hostPatternCovers, knowledgeRank, type ToolUses } from "@airlock/sdk";
import type { EgressRule, ToolManifest } from "@airlock/sdk/manifest";
import type { CallGrant } from "./types.ts";

export interface ToolGrants {
  /** null: the legacy mode (the tool declared no `uses`). */
  readonly uses: ToolUses | null;
  readonly declaredSecrets: ReadonlySet<string>;
}

const toolGrants = new WeakMap<ToolManifest, ToolGrants>();

/** A manifest tool's grants, computed once per manifest tool (grants only read them). */
export function toolGrantsOf(tool: ToolManifest): ToolGrants {
  let grants = toolGrants.get(tool);
  if (grants === undefined) {
    const keys = tool.requiredSecrets.map((s) => s.key);
    grants = {
      uses: tool.uses ?? null,
      declaredSecrets: new Set(tool.uses === undefined ? keys : [...keys, ...(tool.uses.secrets ?? [])]),
    };
    toolGrants.set(tool, grants);
  }
  return grants;
}

/**
 * The egress rules a declared tool's fetches go through: for each declared host, the rules in
 * force that cover it, narrowed to that host. Every hop (redirects included) is then held to
 * the tool's hosts by the egress gate itself. Legacy: the rules in force, unchanged.
 */
export function egressForUses(egress: readonly EgressRule[], uses: ToolUses | null): readonly EgressRule[] {
  if (uses === null) return egress;
  const out: EgressRule[] = [];
  for (const f of uses.fetch ?? [])
    for (const rule of egress) if (hostPatternCovers(rule.host, f.host)) out.push({ ...rule, host: f.host });
  return out;
}

/** The `uses` level each method of knowledge and state needs. */
const KNOWLEDGE_NEEDS: Readonly<Record<string, number>> = {
  search: 1,
  get: 1,
  list: 1,
  write: 2,
  append: 2,
  reingest: 2,
  delete: 3,
};
const STATE_NEEDS: Readonly<Record<string, number>> = { get: 1, keys: 1, set: 2, delete: 2 };
const STATE_RANK: Readonly<Record<string, number>> = { read: 1, write: 2 };
const LEVEL_NAME = ["none", "read", "write", "manage"];

function needs(table: Readonly<Record<string, number>>, method: string): number {
  return Object.hasOwn(table, method) ? (table[method] as number) : Number.POSITIVE_INFINITY;
}

/** What a request needs that the tool's `uses` does not declare. */
export interface Undeclared {
  /** Fixed per kind (`fetch_host`, `knowledge_write`...): the audit's details.reason. */
  readonly reason: string;
  readonly message: string;
}

const missing = (reason: string, message: string): Undeclared => ({ reason, message });

function fetchRefusal(uses: ToolUses, args: readonly unknown[]): Undeclared | null {
  let url: URL;
  try {
    url = new URL(String(args[0]));
  } catch {
    return null; // not a URL: the fetch capability refuses it with its own code
  }
  const init = args[1];
  const rawMethod =
    typeof init === "object" && init !== null ? (init as { method?: unknown }).method : undefined;
  const method = typeof rawMethod === "string" ? rawMethod.toUpperCase() : "GET";
  const host = url.hostname.toLowerCase();
  const entries = (uses.fetch ?? []).filter((f) => hostPatternCovers(f.host, host));
  if (entries.length === 0) return missing("fetch_host", `a fetch of ${host} is not declared`);
  if (!entries.some((f) => (f.methods as readonly string[]).includes(method)))
    return missing("fetch_method", `a ${method} fetch of ${host} is not declared`);
  const oauth = typeof init === "object" && init !== null ? (init as { oauth?: unknown }).oauth : undefined;
  if (typeof oauth === "string" && !(uses.oauth ?? []).includes(oauth))
    return missing("oauth_provider", `the OAuth provider ${oauth} is not declared`);
  return null;
}

/** Why `uses` does not cover this request, or null when it does (or the tool is legacy). */
export function undeclaredUse(
  grant: Pick<CallGrant, "uses">,
  capability: string,
  method: string,
  args: readonly unknown[],
): Undeclared | null {
  const uses = grant.uses;
  if (uses === null) return null;
  switch (capability) {
    case "knowledge": {
      const need = needs(KNOWLEDGE_NEEDS, method);
      const has = knowledgeRank(uses.knowledge);
      const level = LEVEL_NAME[Math.min(need, 3)];
      return has >= need ? null : missing(`knowledge_${level}`, `knowledge "${level}" is not declared`);
    }
    case "state": {
      const need = needs(STATE_NEEDS, method);
      const has = STATE_RANK[uses.state ?? ""] ?? 0;
      const level = LEVEL_NAME[Math.min(need, 2)];
      return has >= need ? null : missing(`state_${level}`, `state "${level}" is not declared`);
    }
    case "artifacts":
      return (uses.artifacts ?? []).includes(method as "put" | "take")
        ? null
        : missing(
            method === "put" || method === "take" ? `artifacts_${method}` : "artifacts",
            `artifacts "${method}" is not declared`,
          );
    case "fetch":
      return fetchRefusal(uses, args);
    case "models":
      return uses.models === true ? null : missing("models", "models are not declared");
    case "oauth": {
      const name = args[0];
      return typeof name === "string" && (uses.oauth ?? []).includes(name)
        ? null
        : missing("oauth_provider", `the OAuth provider ${String(name).slice(0, 64)} is not declared`);
    }
    default:
      // secrets: narrowed through declaredSecrets (an undeclared key reads undefined, audited);
      // audit, progress, log, elicit: every tool's
      return null;
  }
}
