// An agent's people-in-the-loop policy (who approves which tool; which missing secrets the
// person at the client may enter on the host's page), kept in the store as one of the host's
// own state rows: agent, conversation SETTINGS_CONVERSATION, namespace "airlock" (a reserved
// namespace no plugin can have, so no plugin's ctx.state reaches it). Every replica reads it.
// Invariants: a policy is validated whole before it is written (a bad one leaves the stored
// one as it was); an unset or unreadable row reads as DEFAULT_POLICY (the operator decides,
// nothing askable), so a broken row can only make the host stricter.
import { AirlockError, SECRET_KEY_PATTERN } from "@airlock/sdk";
import type { PolicyPatch } from "../../contracts/people.ts";
import type { Store } from "../../state/store/types.ts";
import { PEOPLE_ERRORS } from "./errors.ts";
import { APPROVAL_MODES, type ApprovalMode, DEFAULT_POLICY, type PeoplePolicy } from "./types.ts";

export type { PolicyPatch } from "../../contracts/people.ts";

export const SETTINGS_CONVERSATION = "airlock:settings";
const NAMESPACE = "airlock";
const KEY = "people.policy";
const MAX_BYTES = 64 * 1024;
const TOOL_ID = /^[a-z][a-z0-9-]{1,31}:[a-z][a-zA-Z0-9_]{0,63}$/;

function invalid(message: string): AirlockError {
  return new AirlockError("AIRLOCK_POLICY_INVALID", message, {
    status: PEOPLE_ERRORS.AIRLOCK_POLICY_INVALID.status,
  });
}

function mode(value: unknown, what: string): ApprovalMode {
  if (typeof value !== "string" || !(APPROVAL_MODES as readonly string[]).includes(value)) {
    throw invalid(`${what} must be one of ${APPROVAL_MODES.join(", ")} (got ${JSON.stringify(value)})`);
  }
  return value as ApprovalMode;
}

/** Checks a patch from an operator (API body, CLI flags); throws AIRLOCK_POLICY_INVALID. */
export function checkPatch(patch: unknown): PolicyPatch {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    throw invalid("a policy change is an object: { approval?, destructive?, tools?, askSecrets? }");
  }
  const raw = patch as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!["approval", "destructive", "tools", "askSecrets"].includes(key))
      throw invalid(`unknown policy field ${JSON.stringify(key)}`);
  }
  const out: PolicyPatch = {};
  if (raw.approval !== undefined) out.approval = mode(raw.approval, "approval");
  if (raw.destructive !== undefined) {
    out.destructive = raw.destructive === null ? null : mode(raw.destructive, "destructive");
  }
  if (raw.tools !== undefined) {
    if (raw.tools === null || typeof raw.tools !== "object" || Array.isArray(raw.tools)) {
      throw invalid("tools maps ns:tool ids to operator, client, auto or null");
    }
    const tools: Record<string, ApprovalMode | null> = {};
    for (const [id, value] of Object.entries(raw.tools)) {
      if (!TOOL_ID.test(id)) throw invalid(`${JSON.stringify(id)} is not a tool id (<namespace>:<tool>)`);
      tools[id] = value === null ? null : mode(value, `tools[${JSON.stringify(id)}]`);
    }
    out.tools = tools;
  }
  if (raw.askSecrets !== undefined) {
    if (!Array.isArray(raw.askSecrets)) throw invalid("askSecrets is a list of secret keys");
    for (const key of raw.askSecrets) {
      if (typeof key !== "string" || !SECRET_KEY_PATTERN.test(key)) {
        throw invalid(`${JSON.stringify(key)} is not a secret key (lowercase snake_case)`);
      }
    }
    out.askSecrets = [...new Set(raw.askSecrets as string[])].sort();
  }
  return out;
}

function parse(stored: string | null): PeoplePolicy {
  if (stored === null) return structuredClone(DEFAULT_POLICY);
  try {
    const value = JSON.parse(stored) as Partial<PeoplePolicy>;
    const checked = checkPatch(value);
    const tools: Record<string, ApprovalMode> = {};
    for (const [id, m] of Object.entries(checked.tools ?? {})) if (m !== null) tools[id] = m;
    return {
      approval: checked.approval ?? "operator",
      destructive: checked.destructive ?? null,
      tools,
      askSecrets: checked.askSecrets ?? [],
    };
  } catch {
    return structuredClone(DEFAULT_POLICY); // a row we cannot read: the strict default
  }
}

export async function readPolicy(store: Store, agent: string): Promise<PeoplePolicy> {
  return parse(await store.getState(agent, SETTINGS_CONVERSATION, NAMESPACE, KEY));
}

/** Applies a checked patch and writes the whole policy; answers the policy now in force. */
export async function writePolicy(store: Store, agent: string, patch: PolicyPatch): Promise<PeoplePolicy> {
  const current = await readPolicy(store, agent);
  const tools = { ...current.tools };
  for (const [id, m] of Object.entries(patch.tools ?? {})) {
    if (m === null) delete tools[id];
    else tools[id] = m;
  }
  const next: PeoplePolicy = {
    approval: patch.approval ?? current.approval,
    destructive: patch.destructive === undefined ? current.destructive : patch.destructive,
    tools,
    askSecrets: patch.askSecrets ?? current.askSecrets,
  };
  const written = await store.setState(
    agent,
    SETTINGS_CONVERSATION,
    NAMESPACE,
    KEY,
    JSON.stringify(next),
    MAX_BYTES,
  );
  if (!written) throw invalid(`the policy is over ${MAX_BYTES} bytes; name fewer tools`);
  return next;
}

/**
 * The approval mode in force for one tool of the agent: its own override, else the destructive
 * tools' mode when the tool is destructive and the policy sets one, else the agent's default.
 */
export function approvalModeOf(policy: PeoplePolicy, toolId: string, destructive = false): ApprovalMode {
  if (Object.hasOwn(policy.tools, toolId)) return policy.tools[toolId] as ApprovalMode;
  if (destructive && policy.destructive !== null) return policy.destructive;
  return policy.approval;
}
