// The operator console's session: signing in with an operator token sets an HttpOnly,
// SameSite=Strict cookie; the admin API then accepts that cookie in place of a bearer token.
// Invariants:
// - the cookie holds, sealed under the host's master key, an operator token issued for this
//   session alone (label CONSOLE_SESSION_LABEL), the id of the operator token it was opened
//   with, its CSRF token and its expiry; JavaScript in the page never sees the token (HttpOnly)
//   and the store keeps only its hash, as for any token;
// - signing out revokes that token, so the cookie is dead on every replica at once;
// - a session lives no longer than the token it was opened with: every use checks in the store
//   that this token still exists and is an operator's, so revoking it ends the session on every
//   replica from the next request on (the session's own token is then revoked too);
// - a refused session (expired, forged, signed out, its opening token revoked) is audited as
//   `console.session` with AIRLOCK_CONSOLE_SESSION_EXPIRED and the reason;
// - a request that is not GET/HEAD and comes with the cookie must carry the session's CSRF token
//   in `x-airlock-csrf` (AIRLOCK_CONSOLE_CSRF_REFUSED otherwise, audited);
// - only an operator token signs in (AIRLOCK_CONSOLE_OPERATOR_ONLY, audited), and a bearer
//   header, when present, always wins over the cookie (the cookie never widens a request).
import { randomBytes, timingSafeEqual } from "node:crypto";
import { hasCode } from "@airlock/sdk/errors";
import type { Context } from "hono";
import type { AirlockHost } from "../../../contracts/host.ts";
import type { TokenRecord } from "../../../contracts/records.ts";
import { authenticateRequest } from "../auth.ts";
import { consoleError } from "./errors.ts";

export const SESSION_COOKIE = "airlock_console";
export const CSRF_HEADER = "x-airlock-csrf";
export const CONSOLE_SESSION_LABEL = "console session";
/** How long a console session lasts (the cookie's Max-Age and the sealed expiry). */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;
const PURPOSE = "airlock-console-session";

interface SealedSession {
  /** the session's own operator token */
  t: string;
  /** the id of the operator token the session was opened with */
  o: string;
  /** the CSRF token */
  c: string;
  /** expiry, ms since the epoch */
  e: number;
}

export interface ConsoleSession {
  record: TokenRecord;
  csrf: string;
  expiresAt: number;
}

/** The value of one cookie of the request, or null. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

function isSecure(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
}

export function sessionCookie(c: Context, value: string, maxAgeSeconds: number): string {
  const attrs = [
    `${SESSION_COOKIE}=${value}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (isSecure(c)) attrs.push("Secure");
  return attrs.join("; ");
}

/** An audit entry of the console (kind admin); never a token or a secret. */
export function consoleAudit(host: AirlockHost, action: string, error: string | null, details?: object) {
  return host.recordAudit({ action, error, details: details === undefined ? null : { ...details } });
}

/** The session the cookie stands for, or null (no cookie); throws (audited) when it is dead or forged. */
export async function openSession(host: AirlockHost, cookie: string | null): Promise<ConsoleSession | null> {
  if (cookie === null || cookie === "") return null;
  const sealed =
    cookie.length > 4096 ? null : (host.unseal(PURPOSE, cookie) as Partial<SealedSession> | null);
  if (
    sealed === null ||
    typeof sealed !== "object" ||
    typeof sealed.t !== "string" ||
    typeof sealed.o !== "string" ||
    typeof sealed.c !== "string" ||
    !(typeof sealed.e === "number" && sealed.e > Date.now())
  ) {
    return sessionRefused(
      host,
      "expired or not sealed by this host",
      "the console session is over; sign in again",
    );
  }
  const record = await host.authenticate(sealed.t);
  if (record === null || record.role !== "operator") {
    return sessionRefused(host, "signed out", "the console session was signed out; sign in again");
  }
  const opener = (await host.listTokens()).find((t) => t.id === sealed.o);
  if (opener === undefined || opener.role !== "operator") {
    // The token that opened the session is gone: so is the session, here and on every replica.
    await host.revokeToken(record.id).catch(ignoreRevoked);
    return sessionRefused(
      host,
      "opening token revoked",
      "the operator token this console session was opened with was revoked; sign in again",
      { tokenId: sealed.o, sessionTokenId: record.id },
    );
  }
  return { record, csrf: sealed.c, expiresAt: sealed.e };
}

/** Audits a refused session (console.session) and throws AIRLOCK_CONSOLE_SESSION_EXPIRED. */
async function sessionRefused(
  host: AirlockHost,
  reason: string,
  message: string,
  details: Record<string, string> = {},
): Promise<never> {
  await consoleAudit(host, "console.session", "AIRLOCK_CONSOLE_SESSION_EXPIRED", { reason, ...details });
  throw consoleError("AIRLOCK_CONSOLE_SESSION_EXPIRED", message);
}

/**
 * Who makes an admin API request: the bearer token when there is an Authorization header, else
 * the console session of the cookie (with its CSRF token checked for anything but GET/HEAD).
 */
export async function authenticateApiCall(host: AirlockHost, c: Context): Promise<TokenRecord> {
  const authorization = c.req.header("authorization");
  const cookie = readCookie(c.req.header("cookie"), SESSION_COOKIE);
  if (authorization !== undefined || cookie === null) return authenticateRequest(host, authorization);
  const session = await openSession(host, cookie);
  if (session === null) return authenticateRequest(host, undefined);
  if (c.req.method !== "GET" && c.req.method !== "HEAD") await checkCsrf(host, c, session);
  return session.record;
}

/** Refuses (and audits) a request whose x-airlock-csrf header is not the session's. */
export async function checkCsrf(host: AirlockHost, c: Context, session: ConsoleSession): Promise<void> {
  const sent = c.req.header(CSRF_HEADER) ?? "";
  if (sameSecret(sent, session.csrf)) return;
  await consoleAudit(host, "console.csrf", "AIRLOCK_CONSOLE_CSRF_REFUSED", {
    method: c.req.method,
    path: new URL(c.req.url).pathname,
  });
  throw consoleError(
    "AIRLOCK_CONSOLE_CSRF_REFUSED",
    `a console request that changes something must carry the session's ${CSRF_HEADER} header`,
  );
}

/** Signs in: checks the presented token is an operator's, issues the session's own token. */
export async function signIn(
  host: AirlockHost,
  presented: string,
): Promise<{ cookie: string; session: ConsoleSession }> {
  let record: TokenRecord;
  try {
    record = await authenticateRequest(host, `Bearer ${presented}`);
  } catch (error) {
    await consoleAudit(host, "console.sign_in", hasCode(error) ? error.code : "AIRLOCK_API_UNAUTHORIZED");
    throw error;
  }
  if (record.role !== "operator") {
    await consoleAudit(host, "console.sign_in", "AIRLOCK_CONSOLE_OPERATOR_ONLY", { tokenId: record.id });
    throw consoleError(
      "AIRLOCK_CONSOLE_OPERATOR_ONLY",
      "the console takes an operator token (alk_op_…), not an agent token",
    );
  }
  await sweepExpiredSessions(host);
  const issued = await host.issueToken(
    "operator",
    undefined,
    `${CONSOLE_SESSION_LABEL} (signed in with ${record.id})`,
  );
  const csrf = randomBytes(24).toString("base64url");
  const expiresAt = Date.now() + SESSION_TTL_MS;
  const sealed: SealedSession = { t: issued.token, o: record.id, c: csrf, e: expiresAt };
  const cookie = host.seal(PURPOSE, sealed);
  const session = await openSession(host, cookie);
  if (session === null) throw new Error("a fresh console session did not open");
  await consoleAudit(host, "console.sign_in", null, { tokenId: record.id, sessionTokenId: issued.id });
  return { cookie, session };
}

/** Signs out: revokes the session's token (the cookie is then refused everywhere). */
export async function signOut(host: AirlockHost, session: ConsoleSession): Promise<void> {
  await host.revokeToken(session.record.id).catch(ignoreRevoked);
  await consoleAudit(host, "console.sign_out", null, { sessionTokenId: session.record.id });
}

/** A token revoked already (by another sign-out or sweep) is what the caller wanted. */
function ignoreRevoked(error: unknown): void {
  if (!(hasCode(error) && error.code === "AIRLOCK_AUTH_TOKEN_NOT_FOUND")) throw error;
}

/** Session tokens older than the session lifetime are revoked (their cookies are dead anyway). */
async function sweepExpiredSessions(host: AirlockHost): Promise<void> {
  const cutoff = Date.now() - SESSION_TTL_MS;
  for (const token of await host.listTokens()) {
    if (token.label.startsWith(CONSOLE_SESSION_LABEL) && Date.parse(token.createdAt) < cutoff) {
      await host.revokeToken(token.id).catch(ignoreRevoked); // another replica's sweep may win
    }
  }
}
