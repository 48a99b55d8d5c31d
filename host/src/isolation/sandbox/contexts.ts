// The agent contexts of one isolate generation: one context per agent, created on first use and
// reused, at most `max` kept — past that, the least recently used idle contexts are released.
// Invariants: a context a call is using (or still creating) is never released; releasing drops
// both the context and the `run` Reference into it, so V8 can collect its heap (a kept Reference
// would pin the whole context); a context whose creation failed is forgotten, so the agent's next
// call creates a fresh one. The cap can be passed only while every kept context is in use
// (bounded by the calls in flight).
import type ivm from "isolated-vm";

/** One agent's context in an isolate, with the References the runtime calls into it through. */
export interface AgentContext {
  context: ivm.Context;
  run: ivm.Reference<(...args: unknown[]) => Promise<string>>;
  settle: ivm.Reference<(bid: number, ok: boolean, valueOrCode: unknown, message?: string) => void>;
  fire: ivm.Reference<(seq: number) => void>;
}

interface Entry {
  ready: Promise<AgentContext>;
  ctx: AgentContext | null;
  /** Calls holding (or waiting for) this context. */
  users: number;
}

/** A context held by one call; `release()` once the call is over (idempotent). */
export interface ContextLease {
  ctx: AgentContext;
  release(): void;
}

export class ContextPool {
  readonly #max: number;
  readonly #free: (ctx: AgentContext) => void;
  /** Map order is recency: the first entry is the least recently used. */
  readonly #entries = new Map<string, Entry>();

  /** `free` releases an evicted context's handles (never called for a context in use). */
  constructor(max: number, free: (ctx: AgentContext) => void) {
    this.#max = Math.max(1, max);
    this.#free = free;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The agent's context when it is made already (a warm call: nothing to wait for), else null. */
  acquireReady(agent: string): ContextLease | null {
    const known = this.#entries.get(agent);
    if (known === undefined || known.ctx === null) return null;
    this.#entries.delete(agent);
    this.#entries.set(agent, known);
    known.users++;
    return this.#lease(agent, known, known.ctx);
  }

  /** The agent's context (created with `create` when it has none), held until released. */
  async acquire(agent: string, create: () => Promise<AgentContext>): Promise<ContextLease> {
    const entry = this.#entryOf(agent, create);
    entry.users++;
    let ctx: AgentContext;
    try {
      ctx = await entry.ready;
    } catch (error) {
      entry.users--;
      throw error;
    }
    return this.#lease(agent, entry, ctx);
  }

  #lease(agent: string, entry: Entry, ctx: AgentContext): ContextLease {
    let held = true;
    return {
      ctx,
      release: () => {
        if (!held) return;
        held = false;
        entry.users--;
        // evicted while in use: free it now that its last call is over
        if (entry.users === 0 && this.#entries.get(agent) !== entry) this.#free(ctx);
        this.#evict();
      },
    };
  }

  #entryOf(agent: string, create: () => Promise<AgentContext>): Entry {
    const known = this.#entries.get(agent);
    if (known) {
      this.#entries.delete(agent);
      this.#entries.set(agent, known);
      return known;
    }
    const entry: Entry = { ready: create(), ctx: null, users: 0 };
    entry.ready.then(
      (ctx) => {
        entry.ctx = ctx;
      },
      () => {
        if (this.#entries.get(agent) === entry) this.#entries.delete(agent);
      },
    );
    this.#entries.set(agent, entry);
    this.#evict();
    return entry;
  }

  /** Releases least recently used idle contexts until at most `max` are kept. */
  #evict(): void {
    if (this.#entries.size <= this.#max) return;
    for (const [agent, entry] of this.#entries) {
      if (this.#entries.size <= this.#max) return;
      if (entry.users > 0 || entry.ctx === null) continue;
      this.#entries.delete(agent);
      this.#free(entry.ctx);
    }
  }
}
