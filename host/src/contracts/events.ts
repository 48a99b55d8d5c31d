// Host events: what a running host announces to listeners in its own process (AirlockHost.on)
// and, for the stream's subset, to event streams of every replica sharing its store
// (AirlockHost.subscribeEvents; host/src/state/cluster/events.ts fans them out).
// Invariants: an event carries ids, names, codes and timings, never a secret; `tools.changed`
// carries no tool list (listeners re-read); a stream event names the replica that served it.
import type { Presentation } from "@airlock/sdk/manifest";
import type { CallNotification } from "./runs.ts";

export interface HostEventMap {
  "tool.started": {
    runId: string;
    callId: string;
    agent: string;
    toolName: string;
    presentation?: Presentation;
  };
  "tool.completed": {
    runId: string;
    callId: string;
    agent: string;
    toolName: string;
    presentation?: Presentation;
    isError: boolean;
    durationMs: number;
  };
  "tool.failed": {
    runId: string;
    callId: string;
    agent: string;
    toolName: string;
    presentation?: Presentation;
    error: { code: string; message: string };
    blocked: boolean;
    durationMs: number;
  };
  "permission.required": {
    approvalId: string;
    runId: string;
    agent: string;
    toolName: string;
    presentation?: Presentation;
    input: Record<string, unknown>;
  };
  /** A plugin's isolate aborted a shared sandbox worker; it now runs in a worker of its own. */
  "plugin.quarantined": {
    namespace: string;
    pluginKey: string;
    worker: number;
    signal: string;
  };
  "tool.progress": {
    runId: string;
    callId: string;
    agent: string;
    toolName: string;
    notification: CallNotification;
  };
  /**
   * What an agent may be served changed: `agent` is the agent concerned, or null for every agent
   * (a plugin lifecycle change, or a catalogue change another replica made). MCP servers turn it
   * into their list-change notification; listeners re-read, the event carries no tool list.
   */
  "tools.changed": { agent: string | null; reason: ToolsChangeReason };
  /** The bridge refused a capability call of plugin code (metrics: refusals by capability). */
  "capability.refused": { capability: string; code: string };
  /**
   * A task of `agent` ended (completed, failed, cancelled), on this replica or — announced over
   * the cluster — on another. MCP servers send the 2025-11-25 `notifications/tasks/status`.
   */
  "task.status": { agent: string; taskId: string };
}
export type ToolsChangeReason = "enablement" | "secrets" | "catalogue";
export type HostEventType = keyof HostEventMap;

/**
 * The events an event stream carries (/api/events, AirlockHost.subscribeEvents); the cluster's
 * STREAM_EVENT_TYPES lists exactly these (state/cluster/events.ts checks it at compile time).
 */
export type StreamEventType = Extract<
  HostEventType,
  "tool.started" | "tool.completed" | "tool.failed" | "permission.required" | "tool.progress"
>;

/** A host event as a stream delivers it: the event's fields plus the replica that served it. */
export type StreamEvent<T extends StreamEventType = StreamEventType> = HostEventMap[T] & { replica: string };
export type StreamListener = (type: StreamEventType, event: StreamEvent) => void;

/**
 * A typed event bus for host events (engine/pipeline/events.ts builds it). Listeners run
 * synchronously in registration order; `on` returns the function that unregisters.
 */
export interface EventBus {
  on<T extends HostEventType>(type: T, listener: (event: HostEventMap[T]) => void): () => void;
  emit<T extends HostEventType>(type: T, event: HostEventMap[T]): void;
  listenerCount(type: HostEventType): number;
}
