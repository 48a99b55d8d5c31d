// One replica's membership in a cluster of hosts sharing a PostgreSQL store: its heartbeat,
// the LISTEN connection, and the outgoing wake-ups (store/cluster-types.ts).
// Invariants: signals are coalesced per event-loop turn (ten enablement changes in one
// request send one NOTIFY per distinct signal) and never block the change that caused them;
// a signal from this replica is ignored when it comes back; after the listener reconnects,
// `onResync` runs so state is re-read from rows; close() stops the heartbeat, marks the
// replica stopped and ends the listener.
import type { ClusterSignal, ClusterStore } from "../store/cluster-types.ts";

export interface CoordinatorHandlers {
  onSignal(signal: ClusterSignal): void;
  onResync(): void;
  /** Every heartbeat (after it is written): periodic duties such as abandoning orphaned approvals. */
  onTick(): Promise<void>;
}

export interface CoordinatorOptions {
  cluster: ClusterStore;
  replica: string;
  handlers: CoordinatorHandlers;
  report: (what: string, error: unknown) => void;
  /** Open event streams on this replica (written with each heartbeat). */
  streams: () => number;
  heartbeatMs: number;
  staleMs: number;
}

export interface Coordinator {
  readonly replica: string;
  /** Sends a wake-up to the other replicas (coalesced, fire-and-forget). */
  publish(signal: Omit<ClusterSignal, "replica">): void;
  /** Event streams the other live replicas had open at the last heartbeat. */
  remoteStreams(): number;
  /** Writes a heartbeat now (a first stream opened: others should start forwarding events). */
  beat(): Promise<void>;
  close(): Promise<void>;
}

export async function startCoordinator(options: CoordinatorOptions): Promise<Coordinator> {
  const { cluster, replica, handlers, report } = options;
  let queued = new Map<string, ClusterSignal>();
  let flushing = false;
  let remote = 0;
  let closed = false;

  const flush = () => {
    flushing = false;
    const batch = [...queued.values()];
    queued = new Map();
    for (const signal of batch) {
      cluster.notify(signal).catch((error: unknown) => report("cluster notify", error));
    }
  };
  const beat = async () => {
    remote = await cluster.heartbeat(replica, options.streams(), options.staleMs);
  };

  await beat();
  const listener = await cluster.listen({
    onSignal(signal) {
      if (signal.replica === replica) return;
      handlers.onSignal(signal);
    },
    onResync: () => handlers.onResync(),
    onError: (error) => report("cluster listener (reconnecting)", error),
  });
  let ticking = false;
  const timer = setInterval(() => {
    if (ticking || closed) return;
    ticking = true;
    beat()
      .then(() => handlers.onTick())
      .catch((error: unknown) => report("cluster heartbeat", error))
      .finally(() => {
        ticking = false;
      });
  }, options.heartbeatMs);
  timer.unref();

  return {
    replica,
    publish(signal) {
      if (closed) return;
      const full: ClusterSignal = { ...signal, replica };
      queued.set(JSON.stringify(full), full);
      if (!flushing) {
        flushing = true;
        setImmediate(flush);
      }
    },
    remoteStreams: () => remote,
    beat: () => beat().catch((error: unknown) => report("cluster heartbeat", error)),
    async close() {
      if (closed) return;
      if (flushing) flush();
      closed = true;
      clearInterval(timer);
      await listener.close();
      await cluster.stopReplica(replica).catch((error: unknown) => report("cluster stop", error));
    },
  };
}
