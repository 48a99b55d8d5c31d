// A short-lived cache of what each call checks about its agent (the agent record and its
// knowledge level, enabled tool ids, which secret keys are set), so a warm call does not read
// three tables. Staleness bound: a write made through this host (any store method below, the
// host API, a lifecycle change) invalidates the cache at once; a write made by another replica
// or process sharing the store is seen by calls of an already-started run within
// AGENT_STATE_TTL_MS (500 ms); a run start always reads fresh.
// Invariants: an entry whose load began before a local write is never served after it (the
// write counter is read before loading); a failed load is not cached; concurrent gets of one
// agent share one load.

import type { Store } from "../../state/store/types.ts";
import { type AgentState, loadAgentState } from "../catalogue/agent-tools.ts";

export const AGENT_STATE_TTL_MS = 500;

/** Store methods that can change an AgentState (or remove its agent). */
const AGENT_WRITES = [
  "ensureAgent",
  "setKnowledgeLevel",
  "deleteAgent",
  "setToolEnabled",
  "deleteToolEnablementForNamespace",
  "putSecret",
  "deleteSecret",
] as const satisfies ReadonlyArray<keyof Store>;

export interface AgentStateCache {
  /** The cached state when it is younger than the TTL and no local write happened since; else a fresh read. */
  get(slug: string): Promise<AgentState>;
  /** Always reads the store (and refreshes the cache). */
  load(slug: string): Promise<AgentState>;
  /** Forgets everything (called on every local write and catalogue change). */
  invalidate(): void;
}

interface Entry {
  generation: number;
  at: number;
  state: Promise<AgentState>;
}

export function createAgentStateCache(
  store: Store,
  options: { ttlMs?: number; now?: () => number } = {},
): AgentStateCache {
  const ttlMs = options.ttlMs ?? AGENT_STATE_TTL_MS;
  const now = options.now ?? (() => performance.now());
  const entries = new Map<string, Entry>();
  let generation = 0;

  const load = (slug: string): Promise<AgentState> => {
    const entry: Entry = { generation, at: now(), state: loadAgentState(store, slug) };
    entries.set(slug, entry);
    entry.state.catch(() => {
      if (entries.get(slug) === entry) entries.delete(slug);
    });
    return entry.state;
  };

  return {
    get(slug) {
      const entry = entries.get(slug);
      if (entry !== undefined && entry.generation === generation && now() - entry.at < ttlMs) {
        return entry.state;
      }
      return load(slug);
    },
    load,
    invalidate() {
      generation++;
      entries.clear();
    },
  };
}

/** The store with every agent-state write followed by `onWrite` (also when the write fails). */
export function trackAgentWrites(store: Store, onWrite: () => void): Store {
  const tracked: Store = Object.create(store) as Store;
  for (const name of AGENT_WRITES) {
    const original = store[name] as (...args: unknown[]) => Promise<unknown>;
    Object.defineProperty(tracked, name, {
      value: async (...args: unknown[]) => {
        onWrite();
        try {
          return await original.apply(store, args);
        } finally {
          onWrite();
        }
      },
    });
  }
  return tracked;
}
