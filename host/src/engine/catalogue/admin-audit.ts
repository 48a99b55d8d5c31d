// Audit entries (kind "admin") for operator actions taken through the library API: agents,
// knowledge levels, tokens, enablement, secrets, approvals and plugin lifecycle calls.
// Invariants: entries name what changed, never a secret value or a token; a failed action is
// recorded with its error code. The audit keeps its promise (fail closed): an action whose entry
// could not be written is not acknowledged — `audited` rejects with the sink's error (a store
// outage: AIRLOCK_STORE_UNAVAILABLE or AIRLOCK_STORE_FULL), though the change may have been made.
import { hasCode } from "@airlock/sdk";
import type { AuditInput } from "../../state/store/types.ts";

export interface AdminAuditFields {
  agent?: string | null;
  plugin?: string | null;
  details?: Record<string, unknown>;
}

export type AdminAudit = (action: string, fields: AdminAuditFields, error?: unknown) => Promise<void>;

/** `sink` rejects when the entry could not be written (the host reports it too). */
export function createAdminAudit(sink: (entry: AuditInput) => Promise<void>): AdminAudit {
  return (action, fields, error) =>
    sink({
      agent: fields.agent ?? null,
      plugin: fields.plugin ?? null,
      tool: null,
      conversationId: null,
      kind: "admin",
      action,
      allowed: true,
      success: error === undefined,
      error: error === undefined ? null : hasCode(error) ? error.code : "AIRLOCK_INTERNAL",
      durationMs: null,
      details: fields.details ?? null,
    });
}

/** Runs an admin action and audits it, succeeded or failed; rethrows the failure. */
export async function audited<T>(
  audit: AdminAudit,
  action: string,
  fields: AdminAuditFields,
  run: () => Promise<T>,
): Promise<T> {
  let value: T;
  try {
    value = await run();
  } catch (error) {
    // The action failed and is answered so; an entry that cannot be written adds nothing to that.
    await audit(action, fields, error).catch(() => undefined);
    throw error;
  }
  await audit(action, fields); // rejects: the action is not acknowledged as done (fail closed)
  return value;
}
