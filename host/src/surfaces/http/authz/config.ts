// The authorization server's settings, the URL it names itself by, and its audit entries.
// AIRLOCK_AUTHZ_ACCESS_TOKEN_TTL (seconds, 60–86400, default 3600) sets the access tokens';
// codes live 60 s and refresh tokens 30 days (each exchange issues a new one).
// AIRLOCK_AUTHZ_MAX_CLIENTS (1–1000000, default 1000) caps registered clients; registration
// takes REGISTER_BURST requests per source address, refilled one per REGISTER_REFILL_MS.
// The issuer, its endpoints and the MCP resource URLs are built on the operator's public URL
// (--public-url, AIRLOCK_PUBLIC_URL) when one is set — a host behind a TLS-terminating proxy —
// and on the request's origin otherwise.
// Invariants: a bad setting is refused at start with AIRLOCK_AUTHZ_CONFIG_INVALID, never
// silently replaced by the default; audit entries never carry a code or a token, only ids.
import type { AirlockHost } from "../../../contracts/host.ts";
import { authzError } from "./errors.ts";

export interface AuthzConfig {
  codeTtlMs: number;
  accessTtlMs: number;
  refreshTtlMs: number;
  /** Registered clients at most; a registration past it is refused (AIRLOCK_AUTHZ_TOO_MANY_CLIENTS). */
  maxClients: number;
  /** Registrations one source address may make at once (the token bucket's size). */
  registerBurst: number;
  /** One registration comes back to an address's bucket every this many ms. */
  registerRefillMs: number;
}

export const CODE_TTL_MS = 60_000;
export const REFRESH_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const DEFAULT_ACCESS_TTL_SECONDS = 3600;
export const DEFAULT_MAX_CLIENTS = 1000;
export const REGISTER_BURST = 10;
export const REGISTER_REFILL_MS = 60_000;

function wholeSetting(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
  min: number,
  max: number,
  unit: string,
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw authzError(
      "AIRLOCK_AUTHZ_CONFIG_INVALID",
      `${name} is ${JSON.stringify(raw)}; give whole ${unit} from ${min} to ${max}`,
    );
  }
  return value;
}

export function authzConfig(env: Readonly<Record<string, string | undefined>> = process.env): AuthzConfig {
  const seconds = wholeSetting(
    env,
    "AIRLOCK_AUTHZ_ACCESS_TOKEN_TTL",
    DEFAULT_ACCESS_TTL_SECONDS,
    60,
    86_400,
    "seconds",
  );
  return {
    codeTtlMs: CODE_TTL_MS,
    accessTtlMs: seconds * 1000,
    refreshTtlMs: REFRESH_TTL_MS,
    maxClients: wholeSetting(env, "AIRLOCK_AUTHZ_MAX_CLIENTS", DEFAULT_MAX_CLIENTS, 1, 1_000_000, "clients"),
    registerBurst: REGISTER_BURST,
    registerRefillMs: REGISTER_REFILL_MS,
  };
}

/**
 * The base URL this host is reached at from outside: the configured public URL (without a
 * trailing slash), else the origin of the request. Issuer, endpoints and resources hang off it.
 */
export function externalBase(host: AirlockHost, requestUrl: string): string {
  const configured = host.oauth.configuredPublicUrl();
  if (configured !== undefined && configured !== "") return configured.replace(/\/+$/, "");
  return new URL(requestUrl).origin;
}

/** The origin (scheme, host, port) a browser on the consent page sends in its Origin header. */
export const externalOrigin = (host: AirlockHost, requestUrl: string): string =>
  new URL(externalBase(host, requestUrl)).origin;

/** One audit entry of the authorization server (kind admin, action `oauth_as.<step>`). */
export async function authzAudit(
  host: AirlockHost,
  step: string,
  error: string | null,
  agent: string | null,
  details: Record<string, unknown> = {},
): Promise<void> {
  await host.recordAudit({ action: `oauth_as.${step}`, error, agent, details: { ...details } });
}
