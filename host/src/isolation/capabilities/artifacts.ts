// ctx.artifacts on the host side: a short-lived handoff of bytes between tools of the same
// agent and conversation.
// Defaults (DEFAULT_ARTIFACT_LIMITS, overridable per host): TTL 10 min when the tool gives none,
// capped at 1 h; 10 MiB per artifact; 32 artifacts / 64 MiB per (agent, conversation);
// 1024 artifacts / 512 MiB across the host (or across all replicas sharing PostgreSQL).
// Invariants: the binding comes from the grant, never from arguments; handles are 144 random
// bits; a put over a cap changes nothing and throws AIRLOCK_ARTIFACT_TOO_LARGE or
// AIRLOCK_ARTIFACT_LIMIT; take answers null for anything it cannot hand out (malformed,
// unknown, taken, expired, foreign) and a foreign take consumes nothing; bytes never reach an
// audit entry (the bridge audits capability and method only). Such a `null` is a soft denial:
// audited as AIRLOCK_ARTIFACT_UNAVAILABLE (reason `malformed` or `unavailable`), the plugin
// told nothing more.
import { randomBytes } from "node:crypto";
import { READABLE_NAME_RULE, unreadableCharacter } from "@airlock/sdk";
import { storeError } from "../../state/store/errors.ts";
import type { ArtifactCaps, Store } from "../../state/store/types.ts";
import { denied } from "../bridge/denials.ts";
import type { Capability } from "../bridge/types.ts";

export interface ArtifactLimits extends ArtifactCaps {
  /** TTL when put() gives none. */
  defaultTtlMs: number;
  /** The host's cap on any TTL a tool asks for (longer requests are shortened to it). */
  maxTtlMs: number;
}

const MiB = 1024 * 1024;
export const DEFAULT_ARTIFACT_LIMITS: Readonly<ArtifactLimits> = {
  maxBytesPerArtifact: 10 * MiB,
  maxCountPerBinding: 32,
  maxBytesPerBinding: 64 * MiB,
  maxCountGlobal: 1024,
  maxBytesGlobal: 512 * MiB,
  defaultTtlMs: 10 * 60_000,
  maxTtlMs: 60 * 60_000,
};

export type ArtifactStore = Pick<Store, "putArtifact" | "takeArtifact" | "sweepArtifacts">;

const HANDLE_PATTERN = /^art_[A-Za-z0-9_-]{24}$/;
const MIME_PATTERN =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(;[ -~]{0,200})?$/;

function invalid(why: string): never {
  throw storeError("AIRLOCK_ARTIFACT_INVALID", `ctx.artifacts.put: ${why}`);
}

function bytesOf(buffer: unknown): Uint8Array {
  if (buffer instanceof Uint8Array) return buffer;
  if (ArrayBuffer.isView(buffer)) return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  if (Object.prototype.toString.call(buffer) === "[object ArrayBuffer]")
    return new Uint8Array(buffer as ArrayBuffer);
  if (typeof buffer === "string") return new TextEncoder().encode(buffer);
  return invalid("buffer must be a Uint8Array (or an ArrayBuffer, or a string stored as UTF-8)");
}

export function validateArtifactInput(value: unknown): { bytes: Uint8Array; filename: string; mime: string } {
  if (typeof value !== "object" || value === null) invalid("the artifact must be {buffer, filename, mime}");
  const { buffer, filename, mime } = value as Record<string, unknown>;
  const bytes = bytesOf(buffer);
  if (typeof filename !== "string" || filename.length === 0 || filename.length > 255) {
    invalid("filename must be a string of 1 to 255 characters");
  }
  if (/[/\\]/.test(filename) || filename === "." || filename === "..") {
    invalid("filename must be a plain file name: no path separators");
  }
  const unreadable = unreadableCharacter(filename);
  if (unreadable !== null) invalid(`filename holds ${unreadable}; a file name has ${READABLE_NAME_RULE}`);
  if (typeof mime !== "string" || !MIME_PATTERN.test(mime))
    invalid("mime must be a media type such as text/csv");
  return { bytes, filename, mime };
}

/** The TTL actually applied: the default when absent, the host cap when longer. */
export function effectiveTtl(
  ttlMs: unknown,
  limits: Pick<ArtifactLimits, "defaultTtlMs" | "maxTtlMs">,
): number {
  if (ttlMs === undefined || ttlMs === null) return limits.defaultTtlMs;
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    invalid("ttlMs must be a positive number of milliseconds");
  }
  return Math.min(Math.ceil(ttlMs), limits.maxTtlMs);
}

export function createArtifactsCapability(options: {
  store: ArtifactStore;
  limits?: Partial<ArtifactLimits>;
  /** The clock (ms since epoch); tests pass their own. */
  now?: () => number;
}): Capability {
  const limits: ArtifactLimits = { ...DEFAULT_ARTIFACT_LIMITS, ...options.limits };
  const now = options.now ?? Date.now;
  const { store } = options;
  return {
    name: "artifacts",
    methods: {
      async put(grant, args) {
        const { bytes, filename, mime } = validateArtifactInput(args[0]);
        const ttl = effectiveTtl(args[1], limits);
        const handle = `art_${randomBytes(18).toString("base64url")}`;
        const at = now();
        const record = {
          handle,
          agent: grant.agent,
          conversationId: grant.conversationId,
          filename,
          mime,
          bytes,
          expiresAt: at + ttl,
        };
        const outcome = await store.putArtifact(record, limits, at);
        if (outcome.ok) return handle;
        if (outcome.reason === "too_large") {
          throw storeError(
            "AIRLOCK_ARTIFACT_TOO_LARGE",
            `the artifact has ${bytes.byteLength} bytes; the host accepts at most ${limits.maxBytesPerArtifact}`,
            { details: { size: bytes.byteLength, limit: limits.maxBytesPerArtifact } },
          );
        }
        const scope = outcome.reason === "binding_full" ? "this conversation" : "the host";
        throw storeError(
          "AIRLOCK_ARTIFACT_LIMIT",
          `${scope} holds too many artifacts (caps: ${
            outcome.reason === "binding_full"
              ? `${limits.maxCountPerBinding} artifacts, ${limits.maxBytesPerBinding} bytes`
              : `${limits.maxCountGlobal} artifacts, ${limits.maxBytesGlobal} bytes`
          }); take or let some expire first`,
          { details: { scope: outcome.reason === "binding_full" ? "conversation" : "global" } },
        );
      },
      async take(grant, args) {
        const handle = args[0];
        if (typeof handle !== "string" || !HANDLE_PATTERN.test(handle))
          return denied(null, "AIRLOCK_ARTIFACT_UNAVAILABLE", "malformed");
        const got = await store.takeArtifact(handle, grant.agent, grant.conversationId, now());
        if (got === null) return denied(null, "AIRLOCK_ARTIFACT_UNAVAILABLE", "unavailable");
        return { buffer: got.bytes, filename: got.filename, mime: got.mime };
      },
    },
  };
}

/** Sweeps expired artifacts every `intervalMs` (default 60 s); returns a function that stops it. */
export function startArtifactSweeper(options: {
  store: ArtifactStore;
  intervalMs?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}): () => void {
  const now = options.now ?? Date.now;
  const report =
    options.onError ??
    ((err: unknown) => process.emitWarning(`artifact sweep failed: ${String(err)}`, "AirlockWarning"));
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    options.store
      .sweepArtifacts(now())
      .catch(report)
      .finally(() => {
        running = false;
      });
  }, options.intervalMs ?? 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
