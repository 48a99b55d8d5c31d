// Audit entries (kind "admin") for operator actions taken through the library API: agents,
// knowledge levels, tokens, enablement, secrets, approvals and plugin lifecycle calls.
// Invariants: entries name what changed, never a secret value or a token; a failed action is
// recorded with its error code; writing the entry never fails the action (the sink reports).
import { hasCode } from "@airlock/sdk";
import type { AuditInput } from "../../state/store/types.ts";

export interface AdminAuditFields {
  agent?: string | null;
  plugin?: string | null;
  details?: Record<string, unknown>;
}

export type AdminAudit = (action: string, fields: AdminAuditFields, error?: unknown) => Promise<void>;

/** `sink` must not reject (the host's audit wrapper reports failures itself). */
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
  try {
    const value = await run();
    await audit(action, fields);
    return value;
  } catch (error) {
    await audit(action, fields, error);
    throw error;
  }
}
