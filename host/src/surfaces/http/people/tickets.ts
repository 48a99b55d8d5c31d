// What the host's pages trust, and how they know it:
// - a secret ticket: the agent, the keys and the tool a secret page is for, sealed under the
//   host's master key with an expiry (the URL the MCP client opens carries it; any replica opens it);
// - a form token: a single-use CSRF token a page's GET hands its form, bound to what the page is
//   for, kept by the host (host.formTokens, engine/admin/surface-state.ts): the store's atomic
//   take consumes it, so a token works once, on one replica, before it expires.
// Invariants: a ticket opens only under the same key, for its purpose, before its expiry; a form
// token is consumed by the first POST that presents it, and only for the binding it was minted for.
import { randomBytes } from "node:crypto";
import type { AirlockHost } from "../../../contracts/host.ts";

export const SECRET_TICKET_PURPOSE = "people-secret-page";
export const TICKET_TTL_MS = 15 * 60 * 1000;

export interface SecretTicket {
  agent: string;
  keys: string[];
  tool: string;
  expires: number;
  nonce: string;
}

export function mintSecretTicket(
  host: AirlockHost,
  what: { agent: string; keys: string[]; tool: string },
): string {
  const ticket: SecretTicket = {
    ...what,
    keys: [...what.keys],
    expires: Date.now() + TICKET_TTL_MS,
    nonce: randomBytes(12).toString("base64url"),
  };
  return host.seal(SECRET_TICKET_PURPOSE, ticket);
}

export function openSecretTicket(host: AirlockHost, sealed: string): SecretTicket | null {
  if (sealed.length > 4096) return null;
  const t = host.unseal(SECRET_TICKET_PURPOSE, sealed) as Partial<SecretTicket> | null;
  if (t === null || typeof t !== "object") return null;
  if (typeof t.agent !== "string" || !Array.isArray(t.keys) || typeof t.tool !== "string") return null;
  if (typeof t.expires !== "number" || Date.now() > t.expires || typeof t.nonce !== "string") return null;
  return t as SecretTicket;
}

/** A fresh single-use form token for `binding` (what the form decides), kept under the agent. */
export function mintFormToken(host: AirlockHost, agent: string, binding: string): Promise<string> {
  return host.formTokens.mint(agent, binding);
}

/** Consumes the token: true once, for the binding it was minted for, before it expires. */
export function takeFormToken(
  host: AirlockHost,
  agent: string,
  binding: string,
  token: unknown,
): Promise<boolean> {
  return host.formTokens.take(agent, binding, token);
}
