// The operation slot of a remote MCP session (session.ts): the one operation a session runs at a
// time, with its own abort controller, byte cap and the caller's signal it follows, and whether
// the session is broken (no longer reusable).
// Contract: `use` binds the next operation to a caller's signal and byte cap, detaching the last
// one's listener; `idle` leaves the slot with nothing attached (an idle session holds no
// caller's signal); `abort` ends the current operation with a reason and breaks the session.
// Invariants: at most one caller's signal listener is attached at any time; a caller's abort,
// an `abort` and a `breakSession` all mark the session broken, and nothing unmarks it; the
// transport reads the live limits through `limits()`, so a new operation takes effect at once.

/** The deadline and byte cap of one operation. */
export interface OperationLimits {
  /** Ends the operation (a deadline, the caller's cancellation). */
  signal: AbortSignal;
  /** The byte cap on what the operation receives. */
  maxBytes: number;
}

/** An operation's signal listener to detach; an idle session has none. */
const NOTHING_TO_DETACH = (): void => undefined;

export interface OperationSlot {
  /** Binds the next operations (until the next `use`) to this deadline and byte cap. */
  use(limits: OperationLimits): void;
  /** Detaches the last operation's signal and leaves a fresh, unattached operation. */
  idle(): void;
  /** Detaches the caller's signal listener, if any. */
  detach(): void;
  /** Ends the current operation with `reason`; the session is broken. */
  abort(reason: unknown): void;
  /** The current operation's own controller (aborted when the caller's signal is). */
  controller(): AbortController;
  /** The current operation's signal and byte cap, as the channel reads them. */
  limits(): { signal: AbortSignal; maxBytes: number };
  breakSession(): void;
  broken(): boolean;
}

export function createOperationSlot(maxBytes: number): OperationSlot {
  let broken = false;
  let op = { controller: new AbortController(), maxBytes, off: NOTHING_TO_DETACH };
  return {
    use(limits) {
      op.off();
      const controller = new AbortController();
      const onAbort = () => {
        broken = true;
        controller.abort(limits.signal.reason);
      };
      if (limits.signal.aborted) onAbort();
      else limits.signal.addEventListener("abort", onAbort, { once: true });
      op = {
        controller,
        maxBytes: limits.maxBytes,
        off: () => limits.signal.removeEventListener("abort", onAbort),
      };
    },
    idle() {
      op.off();
      op = { controller: new AbortController(), maxBytes: 0, off: NOTHING_TO_DETACH };
    },
    detach: () => op.off(),
    abort(reason) {
      broken = true;
      op.controller.abort(reason);
    },
    controller: () => op.controller,
    limits: () => ({ signal: op.controller.signal, maxBytes: op.maxBytes }),
    breakSession() {
      broken = true;
    },
    broken: () => broken,
  };
}
