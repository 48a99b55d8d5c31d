// ctx.audit.log on the host side: a plugin's own audit trail, written to the Store as kind
// "plugin" and attributed by the grant (agent, plugin namespace, tool, conversation), never by
// what the entry claims.
// Invariants: the entry is {action, details?, success?, error?, durationMs?, output?} and nothing
// else; action is 1–200 characters; details is a plain JSON object of at most MAX_DETAILS_BYTES;
// error and output are truncated to their caps; the bridge does not audit this call again.

import type { Store } from "../../state/store/types.ts";
import { bridgeError } from "../bridge/errors.ts";
import type { Capability } from "../bridge/types.ts";

export const MAX_DETAILS_BYTES = 16 * 1024;
export const MAX_ERROR_CHARS = 2000;
export const MAX_OUTPUT_CHARS = 8000;
const ALLOWED = new Set(["action", "details", "success", "error", "durationMs", "output"]);

function invalid(why: string): never {
  throw bridgeError("AIRLOCK_AUDIT_ENTRY_INVALID", `ctx.audit.log: ${why}`);
}

function clip(value: unknown, max: number, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") return invalid(`${what} must be a string`);
  return value.length > max ? `${value.slice(0, max)}…(truncated)` : value;
}

function plainDetails(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return invalid("details must be an object");
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    return invalid("details must be JSON data");
  }
  if (Buffer.byteLength(json, "utf8") > MAX_DETAILS_BYTES) {
    return invalid(`details are over ${MAX_DETAILS_BYTES} bytes of JSON`);
  }
  return JSON.parse(json, (key, v) => (key === "__proto__" ? undefined : v));
}

export function createAuditCapability(options: { store: Pick<Store, "appendAudit"> }): Capability {
  return {
    name: "audit",
    auditedByBridge: () => false,
    methods: {
      async log(grant, args) {
        const entry = args[0];
        if (typeof entry !== "object" || entry === null || Array.isArray(entry))
          invalid("the entry must be an object");
        const e = entry as Record<string, unknown>;
        for (const key of Object.keys(e))
          if (!ALLOWED.has(key)) invalid(`unknown field ${JSON.stringify(key)}`);
        if (typeof e.action !== "string" || e.action.length === 0 || e.action.length > 200) {
          invalid("action must be a string of 1 to 200 characters");
        }
        if (e.success !== undefined && typeof e.success !== "boolean") invalid("success must be a boolean");
        if (
          e.durationMs !== undefined &&
          (typeof e.durationMs !== "number" || !Number.isFinite(e.durationMs) || e.durationMs < 0)
        ) {
          invalid("durationMs must be a finite number ≥ 0");
        }
        const details = plainDetails(e.details);
        const output = clip(e.output, MAX_OUTPUT_CHARS, "output");
        const error = clip(e.error, MAX_ERROR_CHARS, "error");
        const merged =
          details === undefined && output === undefined
            ? null
            : { ...details, ...(output === undefined ? {} : { output }) };
        await options.store.appendAudit({
          agent: grant.agent,
          plugin: grant.namespace,
          tool: grant.tool,
          conversationId: grant.conversationId,
          kind: "plugin",
          action: e.action as string,
          allowed: true,
          success: (e.success as boolean | undefined) ?? null,
          error: error ?? null,
          durationMs: e.durationMs === undefined ? null : Math.round(e.durationMs as number),
          details: merged,
        });
        return undefined;
      },
    },
  };
}
