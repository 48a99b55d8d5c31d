// One incarnation of a plugin's isolate (a "generation"): the isolate, its compiled scripts, its
// agent contexts, the executions in flight and the host function plugin code's bridge calls
// reach. PluginRuntime replaces a generation that was disposed (memory, CPU, unload).
// Invariants: the bridge function (async entry) and the send function (sync entry) answer only
// executions still in flight (an ended call's ctx gets AIRLOCK_BRIDGE_TOKEN_INVALID), the first
// only with plain `{ok, value}` / `{ok:false, code, message}` data, the second only with a call
// number or a refusal code; the isolate's envelope is decoded here and only AIRLOCK_SANDBOX_*
// codes pass.
import { AirlockError } from "@airlock/sdk/errors";
import type ivm from "isolated-vm";
import type { CallMeter } from "./call-meter.ts";
import { type AgentContext, ContextPool } from "./contexts.ts";
import { isSandboxCode, sandboxError } from "./errors.ts";
import type { CallTimers } from "./runtime/index.ts";
import { ENDED_CODE, ENDED_REPLY, type IsolateWiring, type PromptAnswer } from "./wiring.ts";

export type { PromptAnswer };

/** How plugin code reaches the host for one call: the call's token is bound by the caller. */
export interface EngineBridge {
  (capability: string, method: string, args: unknown[]): Promise<unknown>;
  /**
   * Sync entry only, optional: asks the host and waits for its answer a bounded moment on this
   * thread; the answer when it came in time, else the promise that settles with it later.
   */
  ask?: (capability: string, method: string, args: unknown[]) => PromptAnswer | Promise<unknown>;
  /**
   * Tells the host of `count` ctx calls of this call refused before they were sent (the cap, or
   * the fair-use meter: call-meter.ts), so it audits them (BridgeDispatch.refusedBefore).
   */
  refused?: (capability: string, method: string, code: string, count: number) => void;
}

export interface Execution {
  bridge: EngineBridge | null;
  cpuNs: number;
  startedAt: number;
  exceeded: boolean;
  /** The call's wall limit (the plugin's wallMs, or a task call's own); the watchdog's horizon. */
  wallMs?: number;
  /** Sync entry: the call's context's settle() (ctx calls are answered through it). */
  settle?: AgentContext["settle"];
  /** The call's context's fire() (its due timers run through it). */
  fire?: AgentContext["fire"];
  /** Sync entry: the call's fair-use meter (call-meter.ts), which admits each ctx call before it leaves. */
  meter?: CallMeter;
  /** Ends the call at once with this error (its isolate was reset or it overran its budget). */
  fail?: (error: AirlockError) => void;
}

/**
 * Sync entry: what the isolate's send(seq, capability, method, args) hands to the runtime for a
 * call still in flight; returns the answer when it came at once, else the number it will settle.
 */
export type SendHandler = (
  exec: Execution,
  capability: string,
  method: string,
  args: unknown[],
) => number | PromptAnswer;

/** Bridge calls from ended calls tolerated per isolate before it is reset (a loop left running). */
export const MAX_ORPHAN_CALLS = 100;

export type DisposeReason = "cpu" | "memory" | "unload" | "close";

export class Generation {
  readonly isolate: ivm.Isolate;
  readonly contexts: ContextPool;
  readonly executions = new Map<number, Execution>();
  reason: DisposeReason | null = null;
  lastCpu = 0n;
  timer: NodeJS.Timeout | null = null;
  /** CPU burnt while no call was in flight, since the last call ended (code left running). */
  backgroundNs = 0;
  /** Calls creating their agent context (running the bundle) right now. */
  preparing = 0;
  idleSince = 0;
  /** Bridge calls from code whose call had ended (a stale ctx, or a loop left running). */
  orphanCalls = 0;
  bootstrap: ivm.Script | null = null;
  /** A fresh context no agent used yet (the load probe's), taken by the first agent's call. */
  spare: AgentContext | null = null;
  /** The context the isolate came with (bootstrap run, no plugin code): the first one made. */
  prepared: AgentContext | null = null;
  bundle: ivm.Script | null = null;
  /** The References this isolate's contexts hold (made with the isolate: wiring.ts). */
  readonly wiring: IsolateWiring;
  /** CPU (ns) charged to sync entries that served no call in flight since the last call started. */
  strayNs = 0;
  /** The Web runtime's timers of this isolate's calls (the wiring's primitives reach them). */
  readonly timers: CallTimers;

  /** Sync entry only: the synchronous way out of the isolate (see SendHandler). */
  get sendRef(): ivm.Reference | null {
    return this.wiring.sendRef;
  }

  /** Drops a context's handles (all: one Reference alone would keep the context alive). */
  releaseContext(ctx: AgentContext): void {
    if (this.isolate.isDisposed) return; // its heap is gone already
    ctx.run.release();
    ctx.settle.release();
    ctx.fire.release();
    ctx.context.release();
  }

  /**
   * Adopts a fresh isolate and its wiring (isolate-pool.ts); `onOrphanFlood` runs once more than
   * MAX_ORPHAN_CALLS bridge calls came from ended calls; `send`, when given, makes this a
   * sync-entry generation (ctx calls leave through the wiring's send Reference).
   */
  constructor(
    fresh: { isolate: ivm.Isolate; wiring: IsolateWiring },
    maxContexts: number,
    timers: CallTimers,
    onOrphanFlood: () => void,
    send?: SendHandler,
  ) {
    this.isolate = fresh.isolate;
    this.wiring = fresh.wiring;
    this.timers = timers;
    this.contexts = new ContextPool(maxContexts, (ctx) => this.releaseContext(ctx));
    const sendHandler =
      send === undefined
        ? undefined
        : (seq: unknown, capability: unknown, method: unknown, args: unknown) => {
            const exec = typeof seq === "number" ? this.executions.get(seq) : undefined;
            if (exec?.bridge == null) {
              if (++this.orphanCalls === MAX_ORPHAN_CALLS + 1) setImmediate(onOrphanFlood);
              return ENDED_CODE;
            }
            if (typeof capability !== "string" || typeof method !== "string" || !Array.isArray(args))
              return "AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY";
            return send(exec, capability, method, args);
          };
    this.wiring.adopt({
      timers,
      ...(sendHandler === undefined ? {} : { send: sendHandler }),
      bridge: async (seq, capability, method, args) => {
        const bridge = typeof seq === "number" ? this.executions.get(seq)?.bridge : undefined;
        if (!bridge) {
          if (++this.orphanCalls === MAX_ORPHAN_CALLS + 1) onOrphanFlood();
          return ENDED_REPLY;
        }
        if (typeof capability !== "string" || typeof method !== "string" || !Array.isArray(args)) {
          return {
            ok: false,
            code: "AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY",
            message: "malformed bridge request",
          };
        }
        try {
          return { ok: true, value: await bridge(capability, method, args) };
        } catch (error) {
          const code =
            error instanceof AirlockError || hasStringCode(error) ? error.code : "AIRLOCK_BRIDGE_FAILED";
          const message = error instanceof Error ? error.message : "the capability failed";
          return { ok: false, code, message };
        }
      },
    });
  }
}

function hasStringCode(e: unknown): e is { code: string } {
  return typeof e === "object" && e !== null && typeof (e as { code?: unknown }).code === "string";
}

/**
 * The count of ctx calls the isolate refused itself past the cap ("M<n>\n" in front of an
 * envelope: bootstrap.js), and the envelope without it.
 */
export function splitMeter(raw: string): { refused: number; envelope: string } {
  if (!raw.startsWith("M")) return { refused: 0, envelope: raw };
  const end = raw.indexOf("\n");
  const refused = Number(raw.slice(1, end));
  return { refused: Number.isSafeInteger(refused) ? refused : 0, envelope: raw.slice(end + 1) };
}

/** "R<json>" → the JSON; "E<code>\n<message>\n<errorCode>" → that AirlockError (sandbox codes only). */
export function decodeEnvelope(raw: string): string {
  if (raw.startsWith("R")) return raw.slice(1);
  let parts: unknown[] = [];
  try {
    parts = raw.startsWith("E")
      ? raw
          .slice(1)
          .split("\n")
          .map((p) => JSON.parse(p))
      : [];
  } catch (error) {
    throw sandboxError("AIRLOCK_SANDBOX_INTERNAL", "undecodable envelope", { reason: messageOf(error) });
  }
  const [code, message, errorCode] = parts;
  const known = typeof code === "string" && isSandboxCode(code) ? code : "AIRLOCK_SANDBOX_INTERNAL";
  const details = typeof errorCode === "string" && errorCode !== "" ? { errorCode } : undefined;
  throw sandboxError(known, typeof message === "string" ? message : "the call failed", details);
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
