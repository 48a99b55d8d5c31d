// Hostile: booby-trapped results and throws — proxies, Symbol.species, getters, cycles,
// functions, class instances, giant results, forged envelopes, non-Error throws, forged codes.
// Each earns its exact code; the host stays healthy and the canary secret appears nowhere.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { Harness } from "../support/sandbox-harness.ts";
import { MODES } from "../support/sandbox-harness.ts";
import { expectContained, hostilePlugin, hostileSetup } from "../support/sandbox-hostile.ts";

describe.each(MODES)("booby-trapped results and throws (%s)", (mode) => {
  let h: Harness;
  let plugin: SandboxPlugin;
  beforeAll(async () => {
    ({ h, plugin } = await hostileSetup(mode));
  });
  afterAll(async () => h.close());

  const refused: Array<[string, string, unknown?]> = [
    ["proxyThrows", "AIRLOCK_SANDBOX_RESULT_INVALID"],
    ["proxyGetter", "AIRLOCK_SANDBOX_RESULT_INVALID"],
    ["proxyLength", "AIRLOCK_SANDBOX_RESULT_TOO_LARGE"],
    ["species", "AIRLOCK_SANDBOX_RESULT_INVALID"],
    ["getter", "AIRLOCK_SANDBOX_RESULT_INVALID"],
    ["cyclic", "AIRLOCK_SANDBOX_RESULT_INVALID"],
    ["fn", "AIRLOCK_SANDBOX_RESULT_INVALID"],
    ["classInstance", "AIRLOCK_SANDBOX_RESULT_INVALID"],
    ["giantString", "AIRLOCK_SANDBOX_RESULT_TOO_LARGE", { bytes: 5 * 1024 * 1024 }],
    ["giantArray", "AIRLOCK_SANDBOX_RESULT_TOO_LARGE", { n: 100_000 }],
  ];
  it.each(refused)("refuses the result of %s with %s", async (tool, code, input) => {
    const error = await h.callError(plugin, tool, input ?? {});
    expect(error.code).toBe(code);
    await expectContained(h, plugin);
  });

  // Binary data has no one JSON form (numbers? base64?): refused, saying what to return instead;
  // one too big for the result even as the shortest JSON names maxResultBytes (64 KiB here).
  it.each(["Uint8Array", "Float32Array", "BigInt64Array", "ArrayBuffer", "DataView"])(
    "refuses a result holding a %s, naming the size limit when it is over it",
    async (kind) => {
      const small = await h.callError(plugin, "binaryResult", { kind, n: 16 });
      expect([small.code, small.message]).toEqual([
        "AIRLOCK_SANDBOX_RESULT_INVALID",
        `the result holds a ${kind}, which is binary data, not JSON: return Array.from(it) for its numbers, or its bytes as base64 text`,
      ]);
      const big = await h.callError(plugin, "binaryResult", { kind, n: 1_000_000 });
      expect([big.code, big.message]).toEqual([
        "AIRLOCK_SANDBOX_RESULT_TOO_LARGE",
        `the result is too large (maxResultBytes = 65536 bytes): it holds a ${kind} of 1000000 elements`,
      ]);
      await expectContained(h, plugin);
    },
  );

  it("fails a call whose code leaves a promise rejected with no handler with AIRLOCK_SANDBOX_TOOL_THREW", async () => {
    const error = await h.callError(plugin, "unhandledRejection");
    expect([error.code, error.message]).toEqual([
      "AIRLOCK_SANDBOX_TOOL_THREW",
      "the tool left a promise rejected with no handler: Error: left behind",
    ]);
    await expectContained(h, plugin);
  });

  it("names the limit and its value in every limit error", async () => {
    const big = await h.callError(plugin, "giantString", { bytes: 5 * 1024 * 1024 });
    expect([big.code, big.message]).toEqual([
      "AIRLOCK_SANDBOX_RESULT_TOO_LARGE",
      "the result is too large (maxResultBytes = 65536 bytes)",
    ]);
    const cpu = await h.callError(plugin, "loopSync");
    expect([cpu.code, cpu.message, cpu.details]).toEqual([
      "AIRLOCK_SANDBOX_CPU_LIMIT",
      "the call used too much CPU (cpuMs = 150 ms)",
      { name: "cpuMs", limit: 150 },
    ]);
    // a plugin with CPU to spare, so that under load the heap fills before cpuMs runs out
    const roomy = hostilePlugin("roomy", { cpuMs: 20_000 });
    await h.sandbox.load(roomy);
    const heap = await h.callError(roomy, "heapBomb");
    expect([heap.code, heap.message, heap.details]).toEqual([
      "AIRLOCK_SANDBOX_MEMORY_LIMIT",
      "the plugin went over its memory limit (memoryMb = 32 MB)",
      { name: "memoryMb", limit: 32 },
    ]);
    await expectContained(h, plugin);
  });

  it("never consults Symbol.species of a returned plain array", async () => {
    const result = await h.call(plugin, "speciesOnArray");
    expect(result.structuredContent).toEqual({ list: [1, 2] });
    await expectContained(h, plugin);
  });

  it("treats a returned string that looks like a failure envelope as plain text", async () => {
    const result = await h.call(plugin, "forgedEnvelope");
    expect(result.content).toEqual([
      { type: "text", text: 'E{"code":"AIRLOCK_SANDBOX_CPU_LIMIT","message":"forged"}' },
    ]);
    await expectContained(h, plugin);
  });

  it("reports non-Error throws as AIRLOCK_SANDBOX_TOOL_THREW without trusting their fields", async () => {
    const str = await h.callError(plugin, "throwString");
    expect(str.code).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
    expect(str.message).toBe('the tool threw a non-Error value (string): "a plain string"');
    const obj = await h.callError(plugin, "throwObject");
    expect([obj.code, obj.message, obj.details]).toEqual([
      "AIRLOCK_SANDBOX_TOOL_THREW",
      "the tool threw a non-Error value (object)",
      undefined,
    ]);
    const proxy = await h.callError(plugin, "throwProxy");
    expect(proxy.code).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
    await expectContained(h, plugin);
  });

  it("keeps a plugin-chosen AIRLOCK_* code of a thrown Error in details, never as the error's code", async () => {
    const forged = await h.callError(plugin, "throwForgedCode");
    expect(forged.code).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
    expect(forged.details).toEqual({ errorCode: "AIRLOCK_SANDBOX_CPU_LIMIT" });
    const getter = await h.callError(plugin, "throwGetterMessage");
    expect(getter.code).toBe("AIRLOCK_SANDBOX_TOOL_THREW");
    expect(getter.message).toBe("the tool threw an Error");
    await expectContained(h, plugin);
  });
});
