// The host half of the isolate's bounded timers: at most one Node timer per call in flight,
// armed for the earliest timer the isolate asked for (`wake(seq, ms)`); when it fires, `enter`
// re-enters the isolate (the plugin runtime's fire entry, under the call's CPU budget), which
// runs what is due and asks again for the next one.
// Invariants: a delay is clamped to [0, capMs] (capMs = the call's wall time: a timer due later
// can never run before the call ends); cancel(seq) at the end of a call, cancelAll() when the
// isolate goes away, so no Node timer outlives its call; wake for a seq the caller does not
// vouch for (`live(seq)` false: unknown, or already ended) is ignored.
export class CallTimers {
  readonly #armed = new Map<number, { at: number; timer: NodeJS.Timeout }>();
  readonly #live: (seq: number) => boolean;
  readonly #enter: (seq: number) => void;
  readonly #capMs: number;

  constructor(capMs: number, live: (seq: number) => boolean, enter: (seq: number) => void) {
    this.#capMs = capMs;
    this.#live = live;
    this.#enter = enter;
  }

  /** The isolate asks to be entered for `seq` within `ms` (earlier requests win). */
  wake(seq: unknown, ms: unknown): void {
    if (typeof seq !== "number" || typeof ms !== "number" || !this.#live(seq)) return;
    const delay = Math.min(this.#capMs, Math.max(0, Number.isFinite(ms) ? Math.ceil(ms) : this.#capMs));
    const at = Date.now() + delay;
    const armed = this.#armed.get(seq);
    if (armed !== undefined) {
      if (armed.at <= at) return;
      clearTimeout(armed.timer);
    }
    const timer = setTimeout(() => {
      this.#armed.delete(seq);
      if (this.#live(seq)) this.#enter(seq);
    }, delay);
    this.#armed.set(seq, { at, timer });
  }

  /** The call ended: its Node timer (if any) is cleared. */
  cancel(seq: number): void {
    const armed = this.#armed.get(seq);
    if (armed === undefined) return;
    clearTimeout(armed.timer);
    this.#armed.delete(seq);
  }

  cancelAll(): void {
    for (const { timer } of this.#armed.values()) clearTimeout(timer);
    this.#armed.clear();
  }

  /** Calls with a Node timer armed (for tests and stats). */
  get size(): number {
    return this.#armed.size;
  }
}
