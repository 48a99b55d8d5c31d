// What the host's pages trust, and how they know it. Both are sealed under the host's master key
// (host.seal: encrypted and authenticated) and kept by no one: any replica sharing the key opens
// them, and no visit of a page stores anything.
// - a secret ticket: the agent, the keys and the tool a secret page is for, with an expiry (the
//   URL the MCP client opens carries it);
// - a form token: the CSRF token a page hands its form, bound to what the form is for (an
//   approval, a ticket's nonce), with an expiry, and on the approval page, once an operator has
//   signed in, to the operator token that signed in.
// Invariants: a ticket or form token opens only under the same key, for its purpose, before its
// expiry; a form token is accepted only for the binding it was sealed for. A form token is not
// single-use: what a page's POST does is idempotent by itself (a decided approval is no longer
// pending, a secret that is set is never overwritten), and a stateless token is what keeps an
// anonymous visitor from filling the store with one row per visit.
import { randomBytes } from "node:crypto";
import type { AirlockHost } from "../../../contracts/host.ts";

export const SECRET_TICKET_PURPOSE = "people-secret-page";
export const TICKET_TTL_MS = 15 * 60 * 1000;
const FORM_TOKEN_PURPOSE = "people-page-form";
/** How long a page's form stays usable after its GET (or its operator's sign-in). */
export const FORM_TOKEN_TTL_MS = 15 * 60 * 1000;
const MAX_SEALED_CHARS = 4096;

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
  if (sealed.length > MAX_SEALED_CHARS) return null;
  const t = host.unseal(SECRET_TICKET_PURPOSE, sealed) as Partial<SecretTicket> | null;
  if (t === null || typeof t !== "object") return null;
  if (typeof t.agent !== "string" || !Array.isArray(t.keys) || typeof t.tool !== "string") return null;
  if (typeof t.expires !== "number" || Date.now() > t.expires || typeof t.nonce !== "string") return null;
  return t as SecretTicket;
}

/** What a form token says once opened: its binding and, after a sign-in, the operator token's id. */
interface SealedForm {
  /** binding: what the form decides (`approve:<id>`, `secrets:<nonce>`) */
  b: string;
  /** expiry, ms since the epoch */
  e: number;
  /** the id of the operator token that signed in, when one did */
  o?: string;
}

/** A form token for `binding`, usable until FORM_TOKEN_TTL_MS from now; nothing is stored. */
export function mintFormToken(host: AirlockHost, binding: string, operatorTokenId?: string): string {
  const form: SealedForm = {
    b: binding,
    e: Date.now() + FORM_TOKEN_TTL_MS,
    ...(operatorTokenId === undefined ? {} : { o: operatorTokenId }),
  };
  return host.seal(FORM_TOKEN_PURPOSE, form);
}

/**
 * The form token presented, when it was sealed by this host for `binding` and has not expired:
 * `{ operatorTokenId }` (null when no operator had signed in), else null.
 */
export function openFormToken(
  host: AirlockHost,
  binding: string,
  token: unknown,
): { operatorTokenId: string | null } | null {
  if (typeof token !== "string" || token === "" || token.length > MAX_SEALED_CHARS) return null;
  const form = host.unseal(FORM_TOKEN_PURPOSE, token) as Partial<SealedForm> | null;
  if (form === null || typeof form !== "object" || form.b !== binding) return null;
  if (typeof form.e !== "number" || !(form.e > Date.now())) return null;
  return { operatorTokenId: typeof form.o === "string" ? form.o : null };
}
