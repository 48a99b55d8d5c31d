// The in-process Sandbox: isolates live in the host process (embedding, tests). Same contract
// and same suite as the worker mode; the difference is only that a V8 crash here takes the host.
// Invariants: the call's token never enters the isolate — the bridge function handed to the
// engine binds it host-side; input and result cross as size-checked JSON (call-io.ts).
import { decodeResult, encodeInput } from "./call-io.ts";
import { createEngine, type EngineBridge, type EngineOptions } from "./engine.ts";
import { sandboxError } from "./errors.ts";
import type { EffectiveLimits, Sandbox } from "./types.ts";

export type InProcessOptions = EngineOptions;

export function createInProcessSandbox(options: InProcessOptions = {}): Sandbox {
  const engine = createEngine(options);
  const limits = new Map<string, EffectiveLimits>();
  return {
    mode: "in-process",
    async load(plugin) {
      await engine.load(plugin);
      limits.set(plugin.key, plugin.limits);
    },
    async unload(pluginKey) {
      limits.delete(pluginKey);
      await engine.unload(pluginKey);
    },
    async call(call, bridge) {
      const lim = limits.get(call.pluginKey);
      if (!lim)
        throw sandboxError("AIRLOCK_SANDBOX_PLUGIN_NOT_LOADED", `no plugin is loaded as ${call.pluginKey}`);
      const inputJson = encodeInput(call.input, lim.maxInputBytes);
      const { token } = call;
      const engineBridge: EngineBridge = (capability, method, args) =>
        bridge(token, capability, method, args);
      engineBridge.refused = (capability, method, code, count) =>
        bridge.refusedBefore?.(token, capability, method, code, count);
      const json = await engine.run(
        {
          pluginKey: call.pluginKey,
          tool: call.tool,
          inputJson,
          agent: call.context.instanceId,
          contextJson: JSON.stringify(call.context),
          ...(call.wallMs === undefined ? {} : { wallMs: call.wallMs }),
        },
        engineBridge,
        call.signal,
      );
      return decodeResult(json, lim.maxResultBytes);
    },
    stats() {
      const s = engine.stats();
      return {
        mode: "in-process",
        workers: 0,
        loadedPlugins: s.loadedPlugins,
        busyCalls: s.busyCalls,
        restarts: 0,
      };
    },
    async close() {
      await engine.close();
    },
  };
}
