// Server notifications toward MCP clients' streams. One hub per endpoint subscribes to the
// host's `tools.changed` event (told as tools/list_changed and resources/list_changed: the
// resources are the UIs of the served tools, MCP Apps) and fans it out: to the 2026-07-28 listen streams (through the
// per-agent event bus the caller supplies) and to the 2025-era GET streams registered here; and
// to the host's `task.status` event (a task ended, on any replica), which becomes the 2025-11-25
// `notifications/tasks/status` with the task as the store has it now, on that agent's GET streams.
// Invariants: a change for one agent reaches only that agent's streams; a change for every
// agent (a plugin lifecycle change) reaches all; a task's status reaches its agent's streams
// only; a stream's writer that throws is dropped.
import type { AirlockHost } from "../../contracts/host.ts";
import { legacyTask } from "./era-2025/tasks.ts";

export type StreamWriter = (notification: {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}) => boolean;

export class ListChangeHub {
  readonly #streams = new Map<string, Set<StreamWriter>>();
  readonly #off: () => void;
  readonly #offTasks: () => void;

  /** `modern(agent)` is told of every change (agent null = every agent). */
  constructor(host: AirlockHost, modern: (agent: string | null) => void) {
    this.#off = host.on("tools.changed", ({ agent }) => {
      modern(agent);
      const targets = agent === null ? [...this.#streams.values()] : [this.#streams.get(agent)];
      for (const method of ["notifications/tools/list_changed", "notifications/resources/list_changed"]) {
        const notification = { jsonrpc: "2.0", method } as const;
        for (const set of targets) {
          for (const write of set ?? []) if (!write(notification)) set?.delete(write);
        }
      }
    });
    this.#offTasks = host.on("task.status", ({ agent, taskId }) => {
      if (!this.#streams.has(agent)) return; // nobody of this agent listens here: no store read
      host.tasks.get(agent, taskId).then(
        (view) => {
          const set = this.#streams.get(agent);
          if (view === null || set === undefined) return;
          const notification = {
            jsonrpc: "2.0",
            method: "notifications/tasks/status",
            params: legacyTask(view),
          } as const;
          for (const write of set) if (!write(notification)) set.delete(write);
        },
        () => undefined, // the task is gone or the store is closing: a status nobody can read is not sent
      );
    });
  }

  /** Registers a 2025-era stream of `agent`; returns its removal. */
  add(agent: string, write: StreamWriter): () => void {
    let set = this.#streams.get(agent);
    if (set === undefined) {
      set = new Set();
      this.#streams.set(agent, set);
    }
    set.add(write);
    return () => {
      set.delete(write);
      if (set.size === 0 && this.#streams.get(agent) === set) this.#streams.delete(agent);
    };
  }

  close(): void {
    this.#off();
    this.#offTasks();
    this.#streams.clear();
  }
}
