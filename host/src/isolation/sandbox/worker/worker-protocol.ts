// Messages between the host and a sandbox worker process, over the framed channel (channel.ts:
// v8-serialised, so Uint8Array crosses as bytes; the worker's fd 3). Only plain data crosses;
// errors cross as their wire form.
// Invariants: the worker never receives a bridge token or a secret at rest — a bridge request
// names the call by the id the host gave it, and the host resolves that id to the call's token
// only for calls it sent to that same worker.
import type { EngineCall, EngineOptions } from "../engine.ts";
import type { SandboxPlugin } from "../types.ts";

export interface WireError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export type ToWorker =
  | { type: "load"; rid: number; plugin: SandboxPlugin }
  | { type: "unload"; rid: number; pluginKey: string }
  /** `solo`: the host had no other call in flight on any worker when it sent this one. */
  | { type: "call"; id: number; call: EngineCall; solo?: true }
  | { type: "cancel"; id: number }
  | { type: "bridge-reply"; bid: number; ok: true; value?: unknown }
  | { type: "bridge-reply"; bid: number; ok: false; error: WireError }
  | { type: "ping"; n: number }
  /** A call is about to come (Sandbox.expect): an idle worker reads its channel for it a moment. */
  | { type: "wake" };

export type FromWorker =
  | { type: "reply"; rid: number; ok: true }
  | { type: "reply"; rid: number; ok: false; error: WireError }
  | { type: "result"; id: number; ok: true; json: string }
  | { type: "result"; id: number; ok: false; error: WireError }
  | { type: "bridge"; id: number; bid: number; capability: string; method: string; args: unknown[] }
  /** `count` ctx calls of call `id` refused in the worker before they were sent (call-meter.ts). */
  | { type: "refused"; id: number; capability: string; method: string; code: string; count: number }
  | { type: "pong"; n: number }
  | { type: "ready" };

/** Engine knobs a worker is started with (argv[2], JSON). */
export type WorkerEngineOptions = Omit<EngineOptions, "onWarning" | "syncEntry" | "deadlineSlackMs"> & {
  /**
   * How long the worker reads its channel for the host's answer to a ctx call before it waits on
   * its event loop instead (worker-entry.ts). Default 0.3 ms.
   */
  replyWaitMs?: number;
  /**
   * How long into one entry the worker goes on taking ctx answers inside it (worker-entry.ts,
   * PROMPT_ENTRY_MS). Default 5 ms.
   */
  promptEntryMs?: number;
  /**
   * How long an idle worker reads its channel for the call a `wake` announced before it waits on
   * its event loop (worker-entry.ts). Default 0: no wake is sent.
   */
  wakeSpinMs?: number;
};

/** The worker's end of the channel: the file descriptor it is spawned with. */
export const CHANNEL_FD = 3;

export function toWire(error: unknown): WireError {
  if (typeof error === "object" && error !== null) {
    const e = error as { code?: unknown; message?: unknown; details?: unknown };
    if (typeof e.code === "string" && e.code.startsWith("AIRLOCK_")) {
      const wire: WireError = { code: e.code, message: typeof e.message === "string" ? e.message : "failed" };
      if (typeof e.details === "object" && e.details !== null)
        wire.details = e.details as Record<string, unknown>;
      return wire;
    }
  }
  return {
    code: "AIRLOCK_SANDBOX_INTERNAL",
    message: "unexpected failure in the sandbox worker",
    details: { reason: error instanceof Error ? error.message : String(error) },
  };
}
