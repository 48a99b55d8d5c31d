// The fair-use meter of one tool call's capability calls on the sandbox's side of the bridge:
// every ctx call a worker process is about to send to the host passes `admit` first (from
// PluginRuntime#send, the last stop before the channel), so a flood is stopped where it starts,
// before anything is serialised, buffered or sent:
// - the cap: capabilityCalls + 1 calls are sent (the host ends the call at the one past its cap
//   and audits it once); every later one is refused here with AIRLOCK_BRIDGE_CALL_LIMIT;
// - calls waiting for the host's answer: at most MAX_WAITING_CALLS of the call, with at most
//   MAX_WAITING_BYTES of arguments (measured by `measure`, a bounded walk), and across the whole
//   process at most MAX_PROCESS_WAITING_CALLS / MAX_PROCESS_WAITING_BYTES; past any of them the
//   call is refused with AIRLOCK_BRIDGE_BUSY (await some first), so one plugin's flood can
//   neither grow the worker's memory nor put a backlog in front of other plugins' calls;
// - payloads the host clips anyway (a log or progress message, an audit entry's `output` and
//   `error`) are clipped here to what the host keeps, so they are bounded before they are buffered
//   and the host's outcome is the same.
// Refusals are counted by (capability, method, code): the first of each kind is reported at once,
// the rest when the call ends (`end`), through EngineBridge.refused; the host audits them as the
// call's denials (bridge.ts, BridgeDispatch.refusedBefore).
// Invariants: `answered` is called once per admitted call whose answer came, `end` once the call
// is over (what still waits is released then);
// the process-wide counts return to zero when no call waits; a refusal is synchronous (a
// PromptAnswer: no promise, no re-entry into the isolate).
import { MAX_ERROR_CHARS, MAX_OUTPUT_CHARS } from "../capabilities/audit.ts";
import { MAX_NOTIFY_MESSAGE } from "../capabilities/notify.ts";
import type { PromptAnswer } from "./wiring.ts";

/** Where refusals are told (EngineBridge.refused: the host audits them). */
interface RefusalSink {
  refused?: (capability: string, method: string, code: string, count: number) => void;
}

/** Calls of one tool call waiting for the host's answer. */
export const MAX_WAITING_CALLS = 256;
/** Bytes of arguments of one tool call's calls waiting for the host (estimated by `measure`). */
export const MAX_WAITING_BYTES = 16 * 1024 * 1024;
/** The same bounds across every call of this process (a worker). */
export const MAX_PROCESS_WAITING_CALLS = 1024;
export const MAX_PROCESS_WAITING_BYTES = 64 * 1024 * 1024;
/** Nesting past this is measured as if it held MAX_WAITING_BYTES (it cannot be sent anyway). */
const MAX_DEPTH = 64;

const processWaiting = { calls: 0, bytes: 0 };

/** Calls and bytes waiting for the host in this process right now (tests, stats). */
export function waitingInProcess(): { calls: number; bytes: number } {
  return { ...processWaiting };
}

/**
 * An estimate of `value`'s size on the wire (strings by length, byte arrays by length, 8 per
 * other leaf, 2 per node), walking no further once it passes `budget` (returns more than it).
 */
export function measure(value: unknown, budget: number, depth = 0): number {
  switch (typeof value) {
    case "string":
      return value.length + 2;
    case "object": {
      if (value === null) return 4;
      if (depth >= MAX_DEPTH) return budget + 1;
      if (ArrayBuffer.isView(value)) return value.byteLength + 8;
      if (value instanceof ArrayBuffer) return value.byteLength + 8;
      let size = 2;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length && size <= budget; i++)
          size += measure(value[i], budget - size, depth + 1) + 1;
        return size;
      }
      for (const key of Object.keys(value)) {
        size += key.length + 4 + measure((value as Record<string, unknown>)[key], budget - size, depth + 1);
        if (size > budget) return size;
      }
      return size;
    }
    default:
      return 8;
  }
}

/** What the host keeps of a string it clips: the same, so the clip changes nothing it does. */
function clipped(value: unknown, keep: number): unknown {
  return typeof value === "string" && value.length > keep ? value.slice(0, keep) : value;
}

/**
 * The arguments with what the host would clip clipped (the array is changed in place: it is the
 * worker's own copy). `ctx.log` and `ctx.progress` messages keep MAX_NOTIFY_MESSAGE characters
 * (the host slices to that); an audit entry's `output` and `error` keep one character more than
 * the host's caps (the host still sees them as over and marks them truncated).
 */
function clipArgs(capability: string, method: string, args: unknown[]): void {
  if (capability === "log" && method === "write") args[1] = clipped(args[1], MAX_NOTIFY_MESSAGE);
  else if (capability === "progress" && method === "report") args[2] = clipped(args[2], MAX_NOTIFY_MESSAGE);
  else if (capability === "audit" && method === "log") {
    const entry = args[0];
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return;
    const e = entry as Record<string, unknown>;
    if (Object.hasOwn(e, "output")) e.output = clipped(e.output, MAX_OUTPUT_CHARS + 1);
    if (Object.hasOwn(e, "error")) e.error = clipped(e.error, MAX_ERROR_CHARS + 1);
  }
}

interface Refused {
  capability: string;
  method: string;
  code: string;
  /** Refusals not reported yet. */
  count: number;
}

export class CallMeter {
  readonly #cap: number;
  #sent = 0;
  #waiting = 0;
  #waitingBytes = 0;
  #ended = false;
  readonly #refused = new Map<string, Refused>();

  /** `capabilityCalls`: the call's cap (the plugin's limit). */
  constructor(capabilityCalls: number) {
    this.#cap = capabilityCalls;
  }

  /**
   * Admits one ctx call (then returns its measured size, which `answered` takes back once its
   * answer came), or refuses it: the answer the plugin gets, at once.
   */
  admit(bridge: RefusalSink, capability: string, method: string, args: unknown[]): number | PromptAnswer {
    if (this.#sent > this.#cap)
      return this.#refuse(
        bridge,
        capability,
        method,
        "AIRLOCK_BRIDGE_CALL_LIMIT",
        `this tool call used up its capability calls (capabilityCalls = ${this.#cap})`,
      );
    clipArgs(capability, method, args);
    const bytes = measure(args, MAX_WAITING_BYTES);
    if (
      this.#waiting >= MAX_WAITING_CALLS ||
      processWaiting.calls >= MAX_PROCESS_WAITING_CALLS ||
      (this.#waiting > 0 && this.#waitingBytes + bytes > MAX_WAITING_BYTES) ||
      bytes > MAX_WAITING_BYTES ||
      (processWaiting.calls > 0 && processWaiting.bytes + bytes > MAX_PROCESS_WAITING_BYTES)
    )
      return this.#refuse(
        bridge,
        capability,
        method,
        "AIRLOCK_BRIDGE_BUSY",
        `too many of this call's ctx calls are waiting for the host (at most ${MAX_WAITING_CALLS} calls and ${MAX_WAITING_BYTES} bytes of arguments); await some before making more`,
      );
    this.#sent++;
    this.#waiting++;
    this.#waitingBytes += bytes;
    processWaiting.calls++;
    processWaiting.bytes += bytes;
    return bytes;
  }

  /** One admitted call's answer came (after `end`: nothing left to count). */
  answered(bytes: number): void {
    if (this.#ended) return;
    this.#waiting--;
    this.#waitingBytes -= bytes;
    processWaiting.calls--;
    processWaiting.bytes -= bytes;
  }

  /**
   * The call ended: reports the refusals not reported yet, and what still waits stops counting
   * against the process (an answer that never comes cannot hold the worker's budget). Idempotent.
   */
  end(bridge: RefusalSink): void {
    if (this.#ended) return;
    this.#ended = true;
    processWaiting.calls -= this.#waiting;
    processWaiting.bytes -= this.#waitingBytes;
    this.#waiting = 0;
    this.#waitingBytes = 0;
    for (const r of this.#refused.values()) {
      if (r.count > 0) bridge.refused?.(r.capability, r.method, r.code, r.count);
      r.count = 0;
    }
  }

  #refuse(
    bridge: RefusalSink,
    capability: string,
    method: string,
    code: string,
    message: string,
  ): PromptAnswer {
    const kind = `${capability}.${method}\u0000${code}`;
    const known = this.#refused.get(kind);
    if (known !== undefined) known.count++;
    else {
      // the first of its kind is told at once (its denial row is written while the call runs)
      this.#refused.set(kind, { capability, method, code, count: 0 });
      bridge.refused?.(capability, method, code, 1);
    }
    return [false, code, message];
  }
}
