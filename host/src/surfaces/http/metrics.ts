// Prometheus metrics of one host replica, with prom-client, for GET /metrics. Nothing is
// registered or counted until the first scrape creates the collector (createHostMetrics), so
// a host nobody scrapes pays nothing; from then on a call costs two listener calls (started /
// completed or failed) that bump counters, and a refused capability call one more. Gauges
// (approvals pending across the cluster, task queue depth, tasks running, open event streams,
// sandbox workers, worker restarts, busy calls) are read at scrape time. Every series carries the `replica` label so N replicas aggregate cleanly.
// Invariants: one registry per host (never prom-client's global one, so two hosts in one
// process do not collide); a failing gauge read is reported and leaves the series out rather
// than failing the scrape.
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { AirlockHost } from "../../contracts/host.ts";

export interface HostMetrics {
  readonly contentType: string;
  render(): Promise<string>;
  close(): void;
}

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** tool.failed: blocked by a hook, or refused/failed (the code is the refusals counter's label). */
const outcomeOf = (blocked: boolean) => (blocked ? "blocked" : "failed");

export function createHostMetrics(
  host: AirlockHost,
  report: (what: string, error: unknown) => void,
): HostMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ replica: host.replica });
  const calls = new Counter({
    name: "airlock_tool_calls_total",
    help: "Tool calls served by this replica, by outcome (ok, tool_error, failed: refused or failed, blocked: a hook blocked it).",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const refusals = new Counter({
    name: "airlock_tool_refusals_total",
    help: "Tool calls refused or failed, by error code (AIRLOCK_TOOL_DISABLED, AIRLOCK_APPROVAL_DENIED, …).",
    labelNames: ["code"],
    registers: [registry],
  });
  const capabilityRefusals = new Counter({
    name: "airlock_capability_refusals_total",
    help: "Capability calls of plugin code the bridge refused, by capability (secrets, fetch, artifacts, …) and error code.",
    labelNames: ["capability", "code"],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "airlock_tool_call_duration_seconds",
    help: "Whole-pipeline duration of a tool call (approval waits included), by outcome.",
    labelNames: ["outcome"],
    buckets: BUCKETS,
    registers: [registry],
  });
  const inflight = new Gauge({
    name: "airlock_tool_calls_in_flight",
    help: "Tool calls started and not yet finished on this replica.",
    registers: [registry],
  });
  const safely = (what: string, read: () => Promise<void> | void) => async () => {
    try {
      await read();
    } catch (error) {
      report(`metrics: ${what}`, error);
    }
  };
  new Gauge({
    name: "airlock_approvals_pending",
    help: "Approvals waiting for an operator's decision (every replica sharing the store).",
    registers: [registry],
    collect: safely("approvals", async function (this: Gauge) {
      this.set((await host.listApprovals()).length);
    }),
  });
  const sandboxGauge = (name: string, help: string, pick: (s: ReturnType<AirlockHost["stats"]>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect: safely(name, function (this: Gauge) {
        this.set(pick(host.stats()));
      }),
    });
  sandboxGauge(
    "airlock_sandbox_workers",
    "Sandbox worker processes (0 in in-process mode).",
    (s) => s.sandbox.workers,
  );
  sandboxGauge(
    "airlock_sandbox_worker_restarts",
    "Sandbox worker restarts since this replica started.",
    (s) => s.sandbox.restarts,
  );
  sandboxGauge(
    "airlock_sandbox_busy_calls",
    "Calls running in the sandbox right now.",
    (s) => s.sandbox.busyCalls,
  );
  sandboxGauge(
    "airlock_sandbox_loaded_plugins",
    "Plugin versions loaded into isolates.",
    (s) => s.sandbox.loadedPlugins,
  );
  sandboxGauge("airlock_event_streams_open", "Event streams subscribed on this replica.", (s) => s.streams);
  new Gauge({
    name: "airlock_task_queue_depth",
    help: "Tasks (long-running MCP calls) waiting for a replica to run them (every replica sharing the store).",
    registers: [registry],
    collect: safely("task queue", async function (this: Gauge) {
      this.set(await host.tasks.queueDepth());
    }),
  });
  new Gauge({
    name: "airlock_tasks_running",
    help: "Task calls running on this replica.",
    registers: [registry],
    collect: safely("tasks running", function (this: Gauge) {
      this.set(host.tasks.running());
    }),
  });

  const offs = [
    host.on("tool.started", () => inflight.inc()),
    host.on("tool.completed", (e) => {
      inflight.dec();
      const outcome = e.isError ? "tool_error" : "ok";
      calls.inc({ outcome });
      latency.observe({ outcome }, e.durationMs / 1000);
    }),
    host.on("capability.refused", (e) => capabilityRefusals.inc({ capability: e.capability, code: e.code })),
    host.on("tool.failed", (e) => {
      inflight.dec();
      const outcome = outcomeOf(e.blocked);
      calls.inc({ outcome });
      refusals.inc({ code: e.error.code });
      latency.observe({ outcome }, e.durationMs / 1000);
    }),
  ];
  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    close() {
      for (const off of offs) off();
      registry.clear();
    },
  };
}
