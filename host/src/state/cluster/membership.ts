// A host's place among the replicas sharing its store. On a store with `cluster` (PostgreSQL):
// the coordinator (heartbeat, LISTEN, wake-ups), the store-backed approvals and the event
// fan-out; otherwise the one-process registry and the local event source. The host (host.ts) uses only
// this interface, so the rest of the host does not know whether it has peers.
// Invariants: what another replica changed reaches `handlers` within one NOTIFY round trip (the
// host re-reads rows there); after a dropped LISTEN connection `onResync` makes it re-read
// everything it caches; close() leaves the cluster (replica marked stopped) after the host has
// denied its own pending approvals.
import type { EventBus, ToolsChangeReason } from "../../contracts/events.ts";
import type { ClusterSignal } from "../store/cluster-types.ts";
import type { Store } from "../store/types.ts";
import { type ApprovalRegistry, createApprovalRegistry } from "./approval-registry.ts";
import { createSharedApprovalRegistry } from "./approvals.ts";
import { type Coordinator, startCoordinator } from "./coordinator.ts";
import { createClusterEventSource, createLocalEventSource, type EventSource } from "./events.ts";

export interface ReplicaSettings {
  id: string;
  /** How often the replica writes its heartbeat (and sweeps orphaned approvals). */
  heartbeatMs: number;
  /** A replica silent this long is dead: its pending approvals are abandoned. */
  staleMs: number;
}

export interface MembershipHandlers {
  /** Another replica changed what `agent` (null: every agent) is served. */
  onTools(agent: string | null, reason: ToolsChangeReason): void;
  /** Another replica changed an agent's knowledge level. */
  onLevel(agent: string | null): void;
  /** Signals may have been missed (the listener reconnected): re-read everything cached. */
  onResync(): void;
  /** A task of `agent` ended on another replica. */
  onTask?(agent: string, id: string): void;
  /** Another replica revoked a token (or deleted an agent with its tokens). */
  onTokens?(): void;
}

export interface ClusterMembership {
  readonly replica: string;
  readonly shared: boolean;
  readonly approvals: ApprovalRegistry;
  readonly events: EventSource;
  /** Tells the other replicas what changed here (after the rows are written). */
  announce(signal: Omit<ClusterSignal, "replica">): void;
  close(): Promise<void>;
}

const REASONS: ReadonlySet<string> = new Set<ToolsChangeReason>(["enablement", "secrets", "catalogue"]);
const PRUNE_EVERY_TICKS = 30;

export async function joinCluster(options: {
  store: Store;
  settings: ReplicaSettings;
  bus: EventBus;
  report: (what: string, error: unknown) => void;
  handlers: MembershipHandlers;
}): Promise<ClusterMembership> {
  const { store, settings, bus, report, handlers } = options;
  const replica = settings.id;
  const cluster = store.cluster;
  if (cluster === undefined) {
    return {
      replica,
      shared: false,
      approvals: createApprovalRegistry(),
      events: createLocalEventSource(bus, replica, report),
      announce: () => undefined,
      close: async () => undefined,
    };
  }
  let coordinator: Coordinator | undefined;
  const approvals = createSharedApprovalRegistry({
    cluster,
    replica,
    staleMs: settings.staleMs,
    publish: (id) => coordinator?.publish({ kind: "approval", id }),
    report,
  });
  const events = await createClusterEventSource({
    bus,
    cluster,
    replica,
    report,
    remoteStreams: () => coordinator?.remoteStreams() ?? 0,
    publish: (kind) => coordinator?.publish({ kind }),
    beat: async () => coordinator?.beat(),
  });
  let ticks = 0;
  coordinator = await startCoordinator({
    cluster,
    replica,
    report,
    streams: () => events.streams(),
    heartbeatMs: settings.heartbeatMs,
    staleMs: settings.staleMs,
    handlers: {
      onSignal(signal) {
        switch (signal.kind) {
          case "tools": {
            const reason = REASONS.has(signal.reason ?? "")
              ? (signal.reason as ToolsChangeReason)
              : "catalogue";
            handlers.onTools(signal.agent ?? null, reason);
            return;
          }
          case "level":
            handlers.onLevel(signal.agent ?? null);
            return;
          case "approval":
            if (typeof signal.id === "string") approvals.onSignal(signal.id);
            return;
          case "events":
            events.pull();
            return;
          case "streams":
            void coordinator?.beat();
            return;
          case "task":
            if (typeof signal.agent === "string" && typeof signal.id === "string")
              handlers.onTask?.(signal.agent, signal.id);
            return;
          case "tokens":
            handlers.onTokens?.();
            return;
        }
      },
      onResync() {
        handlers.onResync();
        events.pull();
        approvals.resync().catch((error: unknown) => report("approval resync", error));
      },
      async onTick() {
        await approvals.sweep(settings.staleMs);
        await approvals.resync();
        if (++ticks % PRUNE_EVERY_TICKS === 0) await events.prune();
      },
    },
  });
  const joined = coordinator;
  return {
    replica,
    shared: true,
    approvals,
    events,
    announce: (signal) => joined.publish(signal),
    close: () => joined.close(),
  };
}
