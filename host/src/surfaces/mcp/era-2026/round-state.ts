// The sealed state of a 2026-07-28 round trip (round.ts): what a round carries across retries,
// sealed under the host's key (AES-256-GCM, host.seal) so that the stateless endpoint's retry may
// reach any replica, and how the server's requestState.verify opens it.
// Invariants: a state opens only if this host sealed it for MRTR_PURPOSE, it is at most 64 KiB
// and not expired; anything else is AIRLOCK_MRTR_STATE_INVALID (the SDK answers -32602).
import { createHash } from "node:crypto";
import { AirlockError } from "@airlock/sdk";
import type { ElicitResult as WireElicitResult } from "@modelcontextprotocol/server";
import type { AirlockHost } from "../../../contracts/host.ts";
import { PEOPLE_ERRORS } from "../../../index.ts";

export const MRTR_PURPOSE = "mcp-input-required";
/** How long a sealed round state opens (ms). */
export const MRTR_TTL_MS = 10 * 60 * 1000;

/** What a round carries across retries, sealed (2026-07-28). */
export interface RoundState {
  /** agent, tool (wire name), input digest, expiry */
  a: string;
  t: string;
  h: string;
  x: number;
  /** answers of earlier rounds by question key */
  r: Record<string, WireElicitResult>;
  /** the questions the last round asked: the only responses the retry may carry */
  q: string[];
  /** the approval the operator decides on the approval page (opened by an earlier round) */
  o?: string;
}

export function inputDigest(input: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(input ?? {}))
    .digest("base64url");
}

export function stateInvalid(message: string): AirlockError {
  return new AirlockError("AIRLOCK_MRTR_STATE_INVALID", message, {
    status: PEOPLE_ERRORS.AIRLOCK_MRTR_STATE_INVALID.status,
  });
}

/** The server's requestState.verify: opens what this host sealed, within its lifetime. */
export function verifyRoundState(host: AirlockHost, sealed: string): RoundState {
  const state = sealed.length > 64 * 1024 ? null : (host.unseal(MRTR_PURPOSE, sealed) as RoundState | null);
  if (state === null || typeof state !== "object" || typeof state.x !== "number") {
    throw stateInvalid("requestState was not sealed by this host");
  }
  if (Date.now() > state.x) throw stateInvalid("requestState expired; call the tool again");
  return state;
}

/** An answer as the client sends it: one of the three actions. */
export function isElicitResult(value: unknown): value is WireElicitResult {
  const action = (value as { action?: unknown } | null)?.action;
  return action === "accept" || action === "decline" || action === "cancel";
}
