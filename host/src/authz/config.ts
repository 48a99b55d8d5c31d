// Lifetimes of what the authorization server issues, and the audit entries it writes.
// AIRLOCK_AUTHZ_ACCESS_TOKEN_TTL (seconds, 60–86400, default 3600) sets the access tokens';
// codes live 60 s and refresh tokens 30 days (each exchange issues a new one).
// Invariants: a bad setting is refused at start with AIRLOCK_AUTHZ_CONFIG_INVALID, never
// silently replaced by the default; audit entries never carry a code or a token, only ids.
import type { AirlockHost } from "../host-types.ts";
import { authzError } from "./errors.ts";

export interface AuthzConfig {
  codeTtlMs: number;
  accessTtlMs: number;
  refreshTtlMs: number;
}

export const CODE_TTL_MS = 60_000;
export const REFRESH_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const DEFAULT_ACCESS_TTL_SECONDS = 3600;

export function authzConfig(env: Readonly<Record<string, string | undefined>> = process.env): AuthzConfig {
  const raw = env.AIRLOCK_AUTHZ_ACCESS_TOKEN_TTL;
  let seconds = DEFAULT_ACCESS_TTL_SECONDS;
  if (raw !== undefined && raw !== "") {
    seconds = Number(raw);
    if (!Number.isInteger(seconds) || seconds < 60 || seconds > 86_400) {
      throw authzError(
        "AIRLOCK_AUTHZ_CONFIG_INVALID",
        `AIRLOCK_AUTHZ_ACCESS_TOKEN_TTL is ${JSON.stringify(raw)}; give whole seconds from 60 to 86400`,
      );
    }
  }
  return { codeTtlMs: CODE_TTL_MS, accessTtlMs: seconds * 1000, refreshTtlMs: REFRESH_TTL_MS };
}

/** One audit entry of the authorization server (kind admin, action `oauth_as.<step>`). */
export async function authzAudit(
  host: AirlockHost,
  step: string,
  error: string | null,
  agent: string | null,
  details: Record<string, unknown> = {},
): Promise<void> {
  await host.store.appendAudit({
    agent,
    plugin: null,
    tool: null,
    conversationId: null,
    kind: "admin",
    action: `oauth_as.${step}`,
    allowed: error === null,
    success: error === null,
    error,
    durationMs: null,
    details: { ...details },
  });
}
