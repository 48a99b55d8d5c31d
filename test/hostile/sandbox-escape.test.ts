// Hostile: plugin code trying to reach the host — constructor chains toward the host's Function,
// host globals and ivm objects, Error.prepareStackTrace tricks, prototype pollution across the
// boundary. Run against both sandbox modes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { Harness } from "../support/sandbox-harness.ts";
import { MODES } from "../support/sandbox-harness.ts";
import { expectContained, hostileSetup } from "../support/sandbox-hostile.ts";

describe.each(MODES)("sandbox escape attempts (%s)", (mode) => {
  let h: Harness;
  let plugin: SandboxPlugin;
  beforeAll(async () => {
    ({ h, plugin } = await hostileSetup(mode));
  });
  afterAll(async () => h.close());

  it("finds no process, require, fetch, ivm, bridge or WebAssembly from inside (timers are the runtime's)", async () => {
    const result = await h.call(plugin, "reach");
    const globals = Object.fromEntries(
      ["process", "require", "fetch", "ivm", "__airlockBridge", "WebAssembly", "SharedArrayBuffer", "Atomics"]
        .concat(["module", "exports", "Buffer", "setTimeout", "global", "_ivm", "Reference", "ExternalCopy"])
        .map((n) => [n, n === "setTimeout" ? "function" : "undefined"]),
    );
    expect(result.structuredContent).toEqual({
      atLoad: { bridge: "undefined", names: [] },
      globals,
      own: [],
    });
    await expectContained(h, plugin);
  });

  it("reaches only the isolate's own Function through constructor chains of ctx, errors and responses", async () => {
    const result = await h.call(plugin, "constructorChain");
    expect(result.structuredContent).toEqual({
      fromCtxMethod: "undefined",
      fromGeneratorCtor: "undefined",
      fromThisCtor: "true",
      fromCtxProto: "undefined",
      callerOfCtxMethod: "threw TypeError",
      fromBridgeError: "undefined",
      bridgeErrorProto: "true",
      fromResponseText: "undefined",
    });
    await expectContained(h, plugin);
  });

  it("gets no function, receiver or host file from stack frames through Error.prepareStackTrace", async () => {
    const result = await h.call(plugin, "stackTricks", {}, { agent: "stack-agent" });
    const seen = result.structuredContent as { frames: Array<{ fn: string; self: string; file: string }> };
    const bootstrapFrames = seen.frames.filter((f) => f.file === "airlock:bootstrap.js");
    expect(bootstrapFrames.length).toBeGreaterThan(0);
    expect(bootstrapFrames.filter((f) => f.fn !== "undefined" || f.self !== "undefined")).toEqual([]);
    for (const f of seen.frames)
      expect(f.file).toMatch(/^airlock:(bootstrap\.js|hostile@1\.0\.0\/index\.js)$/);
    await expectContained(h, plugin, "stack-agent");
  });

  it("reports a throw as AIRLOCK_SANDBOX_TOOL_THREW even when prepareStackTrace itself throws", async () => {
    const error = await h.callError(plugin, "stackThrow", {}, { agent: "stack-agent-2" });
    expect(error.code).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
    expect(error.message).toBe("visible message");
    await expectContained(h, plugin, "stack-agent-2");
  });

  it("keeps prototype pollution inside the polluting agent's context and out of the host", async () => {
    const result = await h.call(plugin, "pollute", {}, { agent: "agent-a" });
    expect(result.structuredContent).toEqual({ secret: "undefined", list: [1, 2] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, "toJSON")).toBe(false);
    const elsewhere = await h.call(plugin, "pollutionSeen", {}, { agent: "agent-b" });
    expect(elsewhere.structuredContent).toEqual({ polluted: "undefined", iterator: 2 });
    const failure = await h.callError(plugin, "throwForgedCode", {}, { agent: "agent-a" });
    expect(failure.code).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
    await expectContained(h, plugin, "agent-a");
  });

  it("refuses a result carrying a __proto__ key with AIRLOCK_SANDBOX_RESULT_INVALID", async () => {
    const error = await h.callError(plugin, "protoKey", {}, { agent: "proto-agent" });
    expect(error.code).toBe("AIRLOCK_SANDBOX_RESULT_INVALID");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expectContained(h, plugin, "proto-agent");
  });
});
