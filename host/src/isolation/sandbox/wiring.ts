// The References an isolate's contexts hold: the bridge (ctx calls by async apply, in-process),
// send (ctx calls by a synchronous call out, worker processes only) and the Web runtime's host
// primitives. They are made with the isolate (isolate-pool.ts), so a context can be prepared —
// created, its bootstrap run — before a generation takes the isolate; each forwards to what that
// generation installs with `adopt`.
// Invariants: handlers are installed once, before any plugin code runs in the isolate; until then
// nothing in the isolate calls them (only the bootstrap has run), and if something did, the bridge
// and send refuse as for an ended call and a timer request is ignored.
import ivm from "isolated-vm";
import type { CallTimers } from "./runtime/index.ts";
import { createHostPrimitives } from "./runtime/index.ts";

export interface BridgeReply {
  ok: boolean;
  value?: unknown;
  code?: string;
  message?: string;
}

/**
 * A ctx call's answer that came back within the entry that asked it (sync entry):
 * `[true, value]`, or `[false, code, message]`.
 */
export type PromptAnswer = readonly [true, unknown] | readonly [false, string, string];

export interface WiringHandlers {
  /** Answers an async ctx call (seq, capability, method, args) with plain reply data. */
  bridge: (seq: unknown, capability: unknown, method: unknown, args: unknown) => Promise<BridgeReply>;
  /**
   * Sync entry: takes a ctx call and returns its answer when it came at once, else the number its
   * answer will settle, or a refusal code.
   */
  send?: (
    seq: unknown,
    capability: unknown,
    method: unknown,
    args: unknown,
  ) => number | string | PromptAnswer;
  /** The generation's timers (the runtime's `wake` requests go to them). */
  timers: CallTimers;
}

/** The refusal of a ctx call whose call is not in flight (ended, or never started). */
export const ENDED_CODE = "AIRLOCK_BRIDGE_TOKEN_INVALID";
/** The bridge's answer carrying it. */
export const ENDED_REPLY: Readonly<BridgeReply> = Object.freeze({
  ok: false,
  code: ENDED_CODE,
  message: "this call has ended",
});

export class IsolateWiring {
  readonly bridgeRef: ivm.Reference;
  /** Present only for sync entry (a worker process). */
  readonly sendRef: ivm.Reference | null;
  readonly runtimeRef: ivm.Reference;
  #handlers: WiringHandlers | null = null;

  constructor(syncEntry: boolean) {
    this.bridgeRef = new ivm.Reference(
      async (seq: unknown, capability: unknown, method: unknown, args: unknown): Promise<BridgeReply> =>
        this.#handlers === null ? ENDED_REPLY : this.#handlers.bridge(seq, capability, method, args),
    );
    this.sendRef = syncEntry
      ? new ivm.Reference((seq: unknown, capability: unknown, method: unknown, args: unknown) => {
          const send = this.#handlers?.send;
          return send === undefined ? ENDED_CODE : send(seq, capability, method, args);
        })
      : null;
    this.runtimeRef = createHostPrimitives({
      wake: (seq: unknown, ms: unknown) => this.#handlers?.timers.wake(seq, ms),
    });
  }

  /** Installs the generation's handlers (once; a sync wiring needs `send`, an async one refuses it). */
  adopt(handlers: WiringHandlers): void {
    if (this.#handlers !== null) throw new Error("this isolate's wiring is already adopted");
    if ((handlers.send !== undefined) !== (this.sendRef !== null))
      throw new Error("the generation's entry mode differs from its isolate's");
    this.#handlers = handlers;
  }
}
