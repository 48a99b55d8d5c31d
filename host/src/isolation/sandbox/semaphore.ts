// A counting semaphore whose waiters can give up through an AbortSignal.
// Invariants: at most `limit` holders at a time; waiters are served first in, first out; an
// aborted waiter leaves the queue and never holds a slot; `release` is called once per acquire.
export class Semaphore {
  #limit: number;
  #held = 0;
  #waiters: Array<{ grant: () => void }> = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  get held(): number {
    return this.#held;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Takes a free slot now (no promise): false when none is free or others wait (FIFO). */
  tryAcquire(): boolean {
    if (this.#held >= this.#limit || this.#waiters.length > 0) return false;
    this.#held++;
    return true;
  }

  /** Resolves once a slot is held; rejects with the signal's reason if it aborts first. */
  acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#held < this.#limit) {
      this.#held++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          this.#held++;
          resolve();
        },
      };
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  release(): void {
    this.#held--;
    this.#waiters.shift()?.grant();
  }
}
