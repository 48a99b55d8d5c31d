// Call dispatch in the workers sandbox: one tool call from the host's pipeline to the worker that
// serves it, and its result back. The call's input is encoded and its wall-clock deadline started
// here, in the host, before it queues for the plugin's concurrency limit, so queue time counts
// (the worker keeps only a later backstop: deadline.ts). The worker is chosen by the plugin's
// placement (worker-placement.ts: its (agent, conversation)'s last worker when idle, else the
// least busy), and a busy plugin is spread into one more worker (worker-loads.ts).
// Invariants: the call token stays in this process (worker-slot.ts serves the child's bridge
// requests with it); a plugin's `concurrency` bounds its calls across all its workers together;
// a call whose plugin was unloaded while it queued fails AIRLOCK_SANDBOX_UNLOADED; a call of a
// plugin moving between tiers waits for its new worker, within its deadline; the queue slot, the
// holder's in-flight count and the deadline are released however the call ends. This is the hot
// path (once per tool call): it awaits only the queue (when full), a move (only during one) and
// the worker's answer; keep it free of further awaits, allocations and indirections. A call in a
// shared worker that its CPU limit ended is counted for the CPU-share rule (worker-loads.ts
// cpuLimitEnded), off the path of calls that succeed.
import type { ToolResult } from "@airlock/sdk";
import type { BridgeDispatch } from "../../bridge/types.ts";
import { decodeResult, encodeInput } from "../call-io.ts";
import { abortError, startDeadline } from "../deadline.ts";
import { sandboxError } from "../errors.ts";
import type { SandboxCall } from "../types.ts";
import { assertOpen, type WorkerFleet } from "./worker-fleet.ts";
import { cpuLimitEnded, spread } from "./worker-loads.ts";

/** `work`, or the deadline's reason when it aborts first (always an AIRLOCK_SANDBOX_TIMEOUT: startDeadline's own signal). */
function raceDeadline(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Sandbox.expect in workers mode: wakes the idle worker the call would be placed on. */
export function expectCall(
  fleet: WorkerFleet,
  pluginKey: string,
  agent: string,
  conversationId: string,
): void {
  const placed = fleet.placements.get(pluginKey);
  if (placed === undefined || placed.holders.size === 0) return;
  const slot = placed.pick(`${agent}\u0000${conversationId}`);
  if (slot.busy === 0) slot.wake();
}

/** Sandbox.call in workers mode. */
export async function callWorker(
  fleet: WorkerFleet,
  call: SandboxCall,
  bridge: BridgeDispatch,
): Promise<ToolResult> {
  assertOpen(fleet);
  const { placements } = fleet;
  const placed = placements.get(call.pluginKey);
  if (!placed)
    throw sandboxError("AIRLOCK_SANDBOX_PLUGIN_NOT_LOADED", `no plugin is loaded as ${call.pluginKey}`);
  const { limits } = placed.plugin;
  const inputJson = encodeInput(call.input, limits.maxInputBytes);
  // wallMs is decided here, in the host (the worker only keeps a later backstop); a task
  // call brings its own
  const wallMs = call.wallMs ?? limits.wallMs;
  const deadline = startDeadline(wallMs, call.signal);
  const queue = placed.queue;
  try {
    if (deadline.signal.aborted || !queue.tryAcquire())
      await queue.acquire(deadline.signal).catch(() => {
        throw abortError(deadline.signal, wallMs);
      });
    try {
      if (placements.get(call.pluginKey) !== placed)
        throw sandboxError("AIRLOCK_SANDBOX_UNLOADED", "the plugin was unloaded before the call ran");
      // a plugin moving between tiers (a quarantine) has no worker until its new one is ready
      if (placed.holders.size === 0 && placed.moving) await raceDeadline(placed.moving, deadline.signal);
      if (placed.holders.size === 0)
        throw sandboxError(
          "AIRLOCK_SANDBOX_WORKER_CRASHED",
          "the worker hosting this plugin could not be started",
        );
      const affinityKey = `${call.context.instanceId}\u0000${call.context.conversationId}`;
      const slot = placed.pick(affinityKey);
      const holder = placed.holders.get(slot)!;
      spread(fleet, placed);
      holder.inFlight++;
      holder.served++;
      placed.remember(affinityKey, slot);
      let json: string;
      try {
        json = await slot.call(
          {
            pluginKey: call.pluginKey,
            tool: call.tool,
            inputJson,
            agent: call.context.instanceId,
            contextJson: JSON.stringify(call.context),
            ...(call.wallMs === undefined ? {} : { wallMs: call.wallMs }),
          },
          call.token,
          bridge,
          deadline.signal,
        );
      } catch (error) {
        if ((error as { code?: unknown }).code === "AIRLOCK_SANDBOX_CPU_LIMIT" && !placed.dedicated)
          cpuLimitEnded(fleet, slot, call.pluginKey);
        throw error;
      } finally {
        if (--holder.inFlight === 0) holder.onIdle?.();
      }
      return decodeResult(json, limits.maxResultBytes);
    } finally {
      queue.release();
    }
  } finally {
    deadline.clear();
  }
}
