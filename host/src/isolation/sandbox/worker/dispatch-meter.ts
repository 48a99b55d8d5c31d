// The host's meter of the capability calls one worker process sends (worker-slot.ts hands every
// `bridge` message to `submit`): the host's own work (health, the admin API, other workers' and
// other plugins' calls) keeps its latency however many ctx calls one plugin fires.
// - At most DISPATCH_PER_TURN calls of one worker start per turn of the event loop; the rest queue
//   and start in later turns (setImmediate: after the I/O of the turn, a health check included),
//   taken round-robin across the worker's tool calls, so a flooding call does not starve the
//   others' ctx calls in the same worker.
// - Waiting (queued or in flight) at most MAX_CALL_WAITING per tool call and MAX_WORKER_WAITING
//   per worker: past either a call is refused (`refuse`: AIRLOCK_BRIDGE_BUSY, audited by the
//   bridge), never queued. The worker's own meter (call-meter.ts) keeps an honest worker at half
//   of these; they bound what a worker that misbehaves can make the host hold.
// Invariants: every submitted message is either refused or started exactly once, in the order
// submitted within its tool call; `done` is called once per started message; nothing is queued
// once `clear` ran (the worker died: what it asked has no one to answer).
import { MAX_PROCESS_WAITING_CALLS, MAX_WAITING_CALLS } from "../call-meter.ts";

/** Calls of one worker started per event-loop turn before the rest wait for the next turn. */
export const DISPATCH_PER_TURN = 64;
export const MAX_CALL_WAITING = 2 * MAX_WAITING_CALLS;
export const MAX_WORKER_WAITING = 2 * MAX_PROCESS_WAITING_CALLS;

export class DispatchMeter<M extends { id: number }> {
  readonly #start: (message: M, done: () => void) => void;
  readonly #refuse: (message: M) => void;
  /** Calls started this turn (reset by setImmediate). */
  #turn = 0;
  /** Queued messages by tool call (Map order: round-robin). */
  readonly #queued = new Map<number, M[]>();
  #queuedCount = 0;
  /** Queued or in flight, by tool call and in all. */
  readonly #waiting = new Map<number, number>();
  #total = 0;
  #scheduled = false;

  constructor(start: (message: M, done: () => void) => void, refuse: (message: M) => void) {
    this.#start = start;
    this.#refuse = refuse;
  }

  get waiting(): number {
    return this.#total;
  }

  submit(message: M): void {
    const id = message.id;
    const mine = this.#waiting.get(id) ?? 0;
    if (mine >= MAX_CALL_WAITING || this.#total >= MAX_WORKER_WAITING) {
      this.#refuse(message);
      return;
    }
    this.#waiting.set(id, mine + 1);
    this.#total++;
    if (this.#queuedCount === 0 && this.#turn < DISPATCH_PER_TURN) {
      this.#run(message);
      return;
    }
    const queue = this.#queued.get(id);
    if (queue === undefined) this.#queued.set(id, [message]);
    else queue.push(message);
    this.#queuedCount++;
    this.#schedule();
  }

  /** The worker is gone: drops what is queued (nothing will read the answers). */
  clear(): void {
    this.#queued.clear();
    this.#queuedCount = 0;
    this.#waiting.clear();
    this.#total = 0;
  }

  #run(message: M): void {
    this.#turn++;
    this.#schedule();
    let settled = false;
    this.#start(message, () => {
      if (settled) return;
      settled = true;
      const left = (this.#waiting.get(message.id) ?? 1) - 1;
      if (left <= 0) this.#waiting.delete(message.id);
      else this.#waiting.set(message.id, left);
      if (this.#total > 0) this.#total--;
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#nextTurn);
  }

  readonly #nextTurn = (): void => {
    this.#scheduled = false;
    this.#turn = 0;
    // round-robin: one message of each tool call in turn, until this turn's share is used
    while (this.#queuedCount > 0 && this.#turn < DISPATCH_PER_TURN) {
      for (const [id, queue] of this.#queued) {
        const message = queue.shift()!;
        if (queue.length === 0) this.#queued.delete(id);
        this.#queuedCount--;
        this.#run(message);
        if (this.#turn >= DISPATCH_PER_TURN) break;
      }
    }
  };
}
