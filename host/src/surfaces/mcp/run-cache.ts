// Runs reused across MCP requests. Every request is served by a fresh server instance, but
// starting a host Run per request (a catalogue sync and a fresh read of the agent's state) is
// the largest cost of a call. A Run is kept per (agent, conversation) and dropped when the
// host says what the agent may be served changed (`tools.changed`, raised on every replica), so
// the next request takes a new snapshot. Between a change and its event a call may still pass
// the old snapshot's check; the call itself re-checks enablement and secrets (pipeline stage 2).
// A change no event announces (another process on the same SQLite file) is picked up when the
// run is older than RUN_MAX_AGE_MS.
// Invariants: bounded (the least recently used run is dropped first); a run whose start failed
// is not kept; nothing here is needed to serve a request (a miss starts a run).
import type { AirlockHost, Run, RunOptions } from "../../contracts/host.ts";

export const MAX_CACHED_RUNS = 1024;
export const RUN_MAX_AGE_MS = 1000;

export class RunCache {
  readonly #host: AirlockHost;
  readonly #runs = new Map<string, { agent: string; at: number; run: Promise<Run> }>();
  readonly #off: () => void;
  readonly #max: number;

  constructor(host: AirlockHost, max = MAX_CACHED_RUNS) {
    this.#host = host;
    this.#max = max;
    this.#off = host.on("tools.changed", ({ agent }) => this.invalidate(agent));
  }

  /** A run for these options: the kept one, or a new one. */
  get(options: RunOptions): Promise<Run> {
    const key = JSON.stringify([
      options.agent,
      options.conversationId ?? null,
      options.autoApprove ?? null,
      options.tools ?? null,
      options.groups ?? null,
      options.harness ?? null,
    ]);
    const kept = this.#runs.get(key);
    const now = performance.now();
    if (kept !== undefined && now - kept.at < RUN_MAX_AGE_MS) {
      this.#runs.delete(key); // re-inserted: most recently used last
      this.#runs.set(key, kept);
      return kept.run;
    }
    const run = this.#host.startRun(options);
    const entry = { agent: options.agent, at: now, run };
    this.#runs.set(key, entry);
    run.catch(() => {
      if (this.#runs.get(key) === entry) this.#runs.delete(key);
    });
    for (const oldest of this.#runs.keys()) {
      if (this.#runs.size <= this.#max) break;
      this.#runs.delete(oldest);
    }
    return run;
  }

  /** Drops the runs of `agent` (null: of every agent). */
  invalidate(agent: string | null): void {
    for (const [key, entry] of this.#runs)
      if (agent === null || entry.agent === agent) this.#runs.delete(key);
  }

  close(): void {
    this.#off();
    this.#runs.clear();
  }
}
