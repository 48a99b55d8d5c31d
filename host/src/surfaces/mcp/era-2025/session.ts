// A 2025-era MCP session without server-side state: `initialize` mints a session id that is the
// session itself, sealed under the host's master key (agent, token id, conversation id, issue
// time, and what the client declared: its protocol version and elicitation modes). Any replica
// sharing the key opens it. Each request is served by a fresh server instance, which learns
// what the client declared from a synthetic initialize (primer). A session's log level
// (logging/setLevel) lives in the store, under the session's conversation.
// Invariants: a session id opens only for the agent and token that initialized it, within its
// lifetime, and only if this host sealed it; an id longer than 1 KiB is refused unopened.
import { randomUUID } from "node:crypto";
import type { JSONRPCMessage, LoggingLevel } from "@modelcontextprotocol/server";
import type { AirlockHost } from "../../../contracts/host.ts";

/** The 2025-era revisions this endpoint speaks (the header a client sends after initialize). */
export const LEGACY_VERSIONS: ReadonlySet<string> = new Set([
  "2024-11-05",
  "2025-03-26",
  "2025-06-18",
  "2025-11-25",
]);
const SEAL_PURPOSE = "mcp-session";
const STATE_NAMESPACE = "airlock";
const LOG_LEVEL_KEY = "mcp.logLevel";

/** What a session id carries (sealed). */
export interface Claims {
  /** agent */
  a: string;
  /** token id */
  t: string;
  /** conversation id */
  c: string;
  /** issued at (ms since the epoch) */
  i: number;
  /** what the client declared at initialize: its protocol version and elicitation modes (form, url) */
  v?: string;
  e?: { f: boolean; u: boolean };
}

/** A new session for an initialize request: its claims and its id (the sealed claims). */
export function mintSession(
  host: AirlockHost,
  caller: { agent: string; tokenId: string },
  body: unknown,
): { claims: Claims; sessionId: string } {
  const claims: Claims = {
    a: caller.agent,
    t: caller.tokenId,
    c: `mcp-${randomUUID()}`,
    i: Date.now(),
    ...declared(body),
  };
  return { claims, sessionId: host.seal(SEAL_PURPOSE, claims) };
}

/** The session's claims, or null when the id is not this caller's, not this host's, or expired. */
export function openSession(
  host: AirlockHost,
  sessionId: string,
  caller: { agent: string; tokenId: string },
  ttlMs: number,
): Claims | null {
  if (sessionId.length > 1024) return null;
  const claims = host.unseal(SEAL_PURPOSE, sessionId) as Partial<Claims> | null;
  if (claims === null || typeof claims !== "object") return null;
  if (claims.a !== caller.agent || claims.t !== caller.tokenId) return null;
  if (typeof claims.c !== "string" || typeof claims.i !== "number") return null;
  if (Date.now() - claims.i > ttlMs) return null;
  return claims as Claims;
}

/** The minimum log level the session chose (undefined = everything). */
export async function sessionLogLevel(host: AirlockHost, claims: Claims): Promise<LoggingLevel | undefined> {
  const stored = await host.store.getState(claims.a, claims.c, STATE_NAMESPACE, LOG_LEVEL_KEY);
  return stored === null ? undefined : (JSON.parse(stored) as LoggingLevel);
}

/** Remembers the level the session chose (logging/setLevel). */
export async function setSessionLogLevel(
  host: AirlockHost,
  claims: Claims,
  level: LoggingLevel,
): Promise<void> {
  await host.store.setState(claims.a, claims.c, STATE_NAMESPACE, LOG_LEVEL_KEY, JSON.stringify(level), 4096);
}

/** The client's protocol version and elicitation modes from its initialize (kept in the session). */
function declared(body: unknown): Pick<Claims, "v" | "e"> {
  const params = (
    body as { params?: { protocolVersion?: unknown; capabilities?: { elicitation?: unknown } } }
  ).params;
  const version =
    typeof params?.protocolVersion === "string" ? params.protocolVersion.slice(0, 20) : undefined;
  const e = params?.capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (e === undefined || e === null || typeof e !== "object")
    return version === undefined ? {} : { v: version };
  // A bare `elicitation: {}` is form support (the rule before modes existed).
  const modes = { f: e.form !== undefined || e.url === undefined, u: e.url !== undefined };
  return { ...(version === undefined ? {} : { v: version }), e: modes };
}

/** A synthetic initialize replaying what the session's client declared. */
export function primer(claims: Claims): JSONRPCMessage {
  const elicitation = {
    ...(claims.e?.f === true ? { form: {} } : {}),
    ...(claims.e?.u === true ? { url: {} } : {}),
  };
  return {
    jsonrpc: "2.0",
    id: "airlock-session-primer",
    method: "initialize",
    params: {
      protocolVersion: claims.v ?? "2025-03-26",
      capabilities: { elicitation },
      clientInfo: { name: "airlock-session", version: "1" },
    },
  };
}

export function isInitialize(body: unknown): boolean {
  return (
    body !== null &&
    typeof body === "object" &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === "initialize" &&
    "id" in body
  );
}
