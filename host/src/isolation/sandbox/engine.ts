// The isolate engine both sandbox modes share: the in-process sandbox runs it in the host
// process, the worker mode runs one per worker process. It owns the loaded PluginRuntimes, the
// per-plugin concurrency queues and one engine-wide bound on calls in flight (isolated-vm starts
// extra OS threads when more isolates are busy than cores + 1).
// Invariants: a call's wall-clock deadline (wallMs) starts when the call arrives (queue time
// counts) and is independent of CPU time; loading a key that is loaded with the same bundle and
// limits is a no-op, with anything different it replaces the runtime (in-flight calls of the
// old one fail with AIRLOCK_SANDBOX_UNLOADED); unload and close let a code cache being made again
// after a first call (plugin-runtime.ts) finish before they dispose the isolate.
import { availableParallelism } from "node:os";
import { abortError, startDeadline } from "./deadline.ts";
import { sandboxError } from "./errors.ts";
import { IsolatePool } from "./isolate-pool.ts";
import { type EngineBridge, PluginRuntime } from "./plugin-runtime.ts";
import { Semaphore } from "./semaphore.ts";
import type { SandboxPlugin } from "./types.ts";
import { applyPluginV8Flags } from "./v8-flags.ts";

export type { EngineBridge };

export interface EngineOptions {
  /** Calls running at once in this engine, across plugins. Default: cores + 1. */
  maxActiveCalls?: number;
  /** Agent contexts kept per isolate (least recently used are released). Default 64. */
  maxContextsPerIsolate?: number;
  /** How often the CPU watchdog samples a busy isolate. Default 20 ms. */
  watchIntervalMs?: number;
  /**
   * Added to wallMs before this engine stops a call itself. 0 in-process; a worker uses
   * WORKER_BACKSTOP_MS because the host's own deadline (deadline.ts) decides and cancels.
   */
  deadlineSlackMs?: number;
  /** Where non-fatal problems go (an unwritable code cache). Default: process.emitWarning. */
  onWarning?: (message: string) => void;
  /** Enter plugin code synchronously (a worker process; see RuntimeOptions.syncEntry). */
  syncEntry?: boolean;
  /** Runs before each synchronous entry, given the last one's duration in ms (see worker/worker-entry.ts). */
  beforeEntry?: (lastEntryMs: number, pluginKey: string) => void;
}

export interface EngineCall {
  pluginKey: string;
  tool: string;
  /** The input, already serialised and size-checked by the caller. */
  inputJson: string;
  /** The agent (context.instanceId): whose context in the isolate runs the call. */
  agent: string;
  /** JSON of the call's CallContextData, serialised once by the caller. */
  contextJson: string;
  /** This call's wall limit in place of the plugin's wallMs (SandboxCall.wallMs). */
  wallMs?: number;
}

interface Loaded {
  runtime: PluginRuntime;
  queue: Semaphore;
}

export interface Engine {
  load(plugin: SandboxPlugin): Promise<void>;
  unload(pluginKey: string): Promise<void>;
  /**
   * Resolves to the result JSON (not yet normalised), rejects with an AirlockError. `signal`
   * ends the call early; given as the caller's own controller, the call's deadline aborts that
   * controller instead of following its signal (deadline.ts).
   */
  run(call: EngineCall, bridge: EngineBridge, signal: AbortSignal | AbortController): Promise<string>;
  stats(): { loadedPlugins: number; busyCalls: number };
  close(): Promise<void>;
}

function sameLoad(a: SandboxPlugin, b: SandboxPlugin): boolean {
  return a.code === b.code && JSON.stringify(a.limits) === JSON.stringify(b.limits);
}

export function createEngine(options: EngineOptions = {}): Engine {
  applyPluginV8Flags(); // before this process compiles any plugin code (v8-flags.ts)
  const active = new Semaphore(options.maxActiveCalls ?? availableParallelism() + 1);
  const runtimeOptions = {
    maxContexts: options.maxContextsPerIsolate ?? 64,
    watchIntervalMs: options.watchIntervalMs ?? 20,
    onWarning: options.onWarning ?? ((m: string) => process.emitWarning(m, "AirlockSandbox")),
    syncEntry: options.syncEntry === true,
    beforeEntry: options.beforeEntry ?? (() => undefined),
    isolates: new IsolatePool({ syncEntry: options.syncEntry === true }),
  };
  const plugins = new Map<string, Loaded>();
  let closed = false;

  return {
    async load(plugin) {
      if (closed) throw sandboxError("AIRLOCK_SANDBOX_CLOSED", "the sandbox is closed");
      const existing = plugins.get(plugin.key);
      if (existing && sameLoad(existing.runtime.plugin, plugin)) return;
      const runtime = new PluginRuntime(plugin, runtimeOptions);
      try {
        await runtime.prepare();
      } catch (error) {
        runtime.dispose("unload");
        throw error;
      }
      existing?.runtime.dispose("unload");
      plugins.set(plugin.key, { runtime, queue: new Semaphore(plugin.limits.concurrency) });
    },

    async unload(pluginKey) {
      const runtime = plugins.get(pluginKey)?.runtime;
      plugins.delete(pluginKey);
      if (runtime === undefined) return;
      // a code cache being warmed after the first call needs the isolate a few ms more
      const warming = runtime.warming;
      if (warming !== null) await warming;
      runtime.dispose("unload");
    },

    async run(call, bridge, signal) {
      if (closed) throw sandboxError("AIRLOCK_SANDBOX_CLOSED", "the sandbox is closed");
      const loaded = plugins.get(call.pluginKey);
      if (!loaded) {
        throw sandboxError("AIRLOCK_SANDBOX_PLUGIN_NOT_LOADED", `no plugin is loaded as ${call.pluginKey}`);
      }
      const { runtime, queue } = loaded;
      const wallMs = call.wallMs ?? runtime.plugin.limits.wallMs;
      const deadline = startDeadline(wallMs, signal, options.deadlineSlackMs ?? 0);
      const timeout = () => abortError(deadline.signal, wallMs);
      try {
        // a free slot is taken at once; only a wait (or an aborted deadline) goes through acquire
        if (deadline.signal.aborted || !queue.tryAcquire())
          await queue.acquire(deadline.signal).catch(() => {
            throw timeout();
          });
        try {
          if (deadline.signal.aborted || !active.tryAcquire())
            await active.acquire(deadline.signal).catch(() => {
              throw timeout();
            });
          try {
            return await runtime.run(
              call.tool,
              call.inputJson,
              call.agent,
              call.contextJson,
              bridge,
              deadline.signal,
              wallMs,
            );
          } finally {
            active.release();
          }
        } finally {
          queue.release();
        }
      } finally {
        deadline.clear();
      }
    },

    stats() {
      let busyCalls = 0;
      for (const { runtime } of plugins.values()) busyCalls += runtime.busy;
      return { loadedPlugins: plugins.size, busyCalls };
    },

    async close() {
      closed = true;
      const runtimes = [...plugins.values()].map((loaded) => loaded.runtime);
      plugins.clear();
      const warming = runtimes.flatMap((runtime) => runtime.warming ?? []);
      if (warming.length > 0) await Promise.all(warming);
      for (const runtime of runtimes) runtime.dispose("close");
      runtimeOptions.isolates.close();
    },
  };
}
