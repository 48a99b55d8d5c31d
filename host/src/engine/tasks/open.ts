// The host's task service on its store: pg-boss as the queue when the host opened a PostgreSQL
// store by URL (replicas), else the in-process queue (the embedded SQLite default, or a store
// handed in by an embedder, whose connection settings the host does not know).
// Takes the few host options it reads (TaskHostOptions; config.ts's ResolvedHostOptions has
// them), so the engine does not import the root's config.ts.
import type { AirlockHost } from "../../contracts/host.ts";
import type { Store } from "../../state/store/types.ts";
import { createPgBossQueue } from "./pg-boss-queue.ts";
import { createInProcessQueue } from "./queue.ts";
import { createTaskService } from "./service.ts";
import type { HostTasks, TaskSettings } from "./types.ts";

/** The host options the task service reads: where the store is, the task settings, the heartbeat. */
export interface TaskHostOptions {
  /** The store the host opened: a PostgreSQL store by URL gets the pg-boss queue. */
  store: { kind: "postgres"; url: string; schema?: string } | { kind: "sqlite" | "instance" };
  tasks: TaskSettings;
  replica: { staleMs: number; heartbeatMs: number };
}

export function openHostTasks(parts: {
  options: TaskHostOptions;
  store: Store;
  replica: string;
  call: AirlockHost["callTool"];
  /** Whether a task of this tool may be run again by another replica (./resumable.ts). */
  resumable: (toolName: string) => boolean;
  report: (what: string, error: unknown) => void;
  onStatus?: (agent: string, id: string) => void;
}): HostTasks {
  const { options, report } = parts;
  const target = options.store;
  const concurrency = options.tasks.concurrency;
  return createTaskService({
    store: parts.store.tasks,
    replica: parts.replica,
    settings: options.tasks,
    staleMs: options.replica.staleMs,
    sweepMs: options.replica.heartbeatMs,
    call: parts.call,
    resumable: parts.resumable,
    audit: (entry) => parts.store.appendAudit(entry),
    report,
    ...(parts.onStatus === undefined ? {} : { onStatus: parts.onStatus }),
    queue:
      target.kind === "postgres"
        ? (run) => createPgBossQueue({ url: target.url, schema: target.schema, concurrency, run, report })
        : (run) => createInProcessQueue(run, concurrency),
  });
}
