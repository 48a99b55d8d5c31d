// Host events as the event stream (/api/events) sees them: this replica's own, plus — on a
// PostgreSQL store — every other replica's, each naming the replica that served it.
// Fan-out: a replica writes its events to `host_events` (batched per event-loop turn, one
// multi-row INSERT, then one "events" wake-up) only while some other live replica has a stream
// open (learned from heartbeats, and at once from the "streams" wake-up a replica sends when
// its first stream opens); a woken replica reads the rows after the last id it saw.
// Invariants: no event is delivered twice to a stream, and a replica never re-publishes an
// event it read; with no stream open anywhere a call costs one closure call and nothing in
// the database; rows are pruned after EVENT_RETENTION_MS (they are a relay, not a record: the
// audit trail is the record).
import type { EventBus, StreamEvent, StreamEventType, StreamListener } from "../../contracts/events.ts";
import type { ClusterStore, HostEventRow } from "../store/cluster-types.ts";

export const STREAM_EVENT_TYPES = [
  "tool.started",
  "tool.completed",
  "tool.failed",
  "permission.required",
  "tool.progress",
] as const satisfies readonly StreamEventType[];
// The list is the contract's StreamEventType, whole: a type the contract adds fails to compile here.
true satisfies [Exclude<StreamEventType, (typeof STREAM_EVENT_TYPES)[number]>] extends [never] ? true : never;

export type { StreamEvent, StreamEventType, StreamListener };

export interface EventSource {
  /** Every event of these types, from every replica; returns the unsubscribe function. */
  subscribe(types: readonly StreamEventType[], listener: StreamListener): () => void;
  /** Streams open on this replica. */
  streams(): number;
}

export const EVENT_RETENTION_MS = 5 * 60_000;
const READ_BATCH = 500;

function localSubscribers(replica: string) {
  const listeners = new Set<{ types: ReadonlySet<string>; listener: StreamListener }>();
  return {
    listeners,
    deliver(type: StreamEventType, event: StreamEvent, report: (what: string, error: unknown) => void) {
      for (const entry of [...listeners]) {
        if (!entry.types.has(type)) continue;
        try {
          entry.listener(type, event);
        } catch (error) {
          report(`event stream listener of ${type}`, error);
        }
      }
    },
    add(types: readonly StreamEventType[], listener: StreamListener) {
      const entry = { types: new Set<string>(types), listener };
      listeners.add(entry);
      return () => listeners.delete(entry);
    },
    replica,
  };
}

/** One process: the local bus, each event tagged with this replica. */
export function createLocalEventSource(
  bus: EventBus,
  replica: string,
  report: (what: string, error: unknown) => void,
): EventSource {
  const subs = localSubscribers(replica);
  for (const type of STREAM_EVENT_TYPES) {
    bus.on(type, (event) => {
      if (subs.listeners.size > 0) subs.deliver(type, { ...event, replica }, report);
    });
  }
  return {
    subscribe(types, listener) {
      const remove = subs.add(types, listener);
      return () => {
        remove();
      };
    },
    streams: () => subs.listeners.size,
  };
}

export interface ClusterEventSource extends EventSource {
  /** An "events" wake-up: read what other replicas wrote. */
  pull(): void;
  prune(): Promise<void>;
}

export async function createClusterEventSource(options: {
  bus: EventBus;
  cluster: ClusterStore;
  replica: string;
  report: (what: string, error: unknown) => void;
  /** Streams the other live replicas have open. */
  remoteStreams: () => number;
  /** Wake-ups: "events" after a batch is written, "streams" when the first local stream opens. */
  publish: (kind: "events" | "streams") => void;
  /** A first stream opened: refresh the heartbeat so others count it. */
  beat: () => Promise<void>;
}): Promise<ClusterEventSource> {
  const { cluster, replica, report } = options;
  const subs = localSubscribers(replica);
  let lastId = await cluster.lastEventId();
  let outbox: Array<Omit<HostEventRow, "id">> = [];
  let flushQueued = false;
  let pulling = false;
  let pullAgain = false;

  const flush = () => {
    flushQueued = false;
    const rows = outbox;
    outbox = [];
    cluster.appendEvents(rows).then(
      () => options.publish("events"),
      (error: unknown) => report("event fan-out write", error),
    );
  };
  for (const type of STREAM_EVENT_TYPES) {
    options.bus.on(type, (event) => {
      if (subs.listeners.size > 0) subs.deliver(type, { ...event, replica }, report);
      if (options.remoteStreams() === 0) return;
      const agent = (event as { agent?: string }).agent ?? null;
      outbox.push({ replica, type, agent, body: event as unknown as Record<string, unknown> });
      if (!flushQueued) {
        flushQueued = true;
        setImmediate(flush);
      }
    });
  }

  const pullOnce = async () => {
    for (;;) {
      const rows = await cluster.readEvents(lastId, replica, READ_BATCH);
      for (const row of rows) {
        lastId = Math.max(lastId, row.id);
        if (subs.listeners.size === 0) continue;
        subs.deliver(
          row.type as StreamEventType,
          { ...(row.body as StreamEvent), replica: row.replica },
          report,
        );
      }
      if (rows.length < READ_BATCH) return;
    }
  };
  const pull = () => {
    if (pulling) {
      pullAgain = true;
      return;
    }
    pulling = true;
    pullOnce()
      .catch((error: unknown) => report("event fan-out read", error))
      .finally(() => {
        pulling = false;
        if (pullAgain) {
          pullAgain = false;
          pull();
        }
      });
  };

  return {
    subscribe(types, listener) {
      const first = subs.listeners.size === 0;
      const remove = subs.add(types, listener);
      if (first) {
        // Others forward events only while someone listens: tell them now, not at the next heartbeat.
        void options.beat().then(() => options.publish("streams"));
      }
      return () => {
        remove();
      };
    },
    streams: () => subs.listeners.size,
    pull,
    async prune() {
      await cluster.pruneEvents(EVENT_RETENTION_MS);
    },
  };
}
