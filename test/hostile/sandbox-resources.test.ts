// Hostile: resource exhaustion — infinite loops (sync, in microtasks, after an await), heap and
// ArrayBuffer memory bombs, a single huge allocation. Each earns its exact code, the plugin's
// isolate is replaced when it had to be, and the host serves the next call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { Harness } from "../support/sandbox-harness.ts";
import { MODES } from "../support/sandbox-harness.ts";
import { expectContained, hostilePlugin, hostileSetup, waitFor } from "../support/sandbox-hostile.ts";

describe.each(MODES)("resource exhaustion (%s)", (mode) => {
  let h: Harness;
  let plugin: SandboxPlugin;
  // generous CPU so that on a loaded machine the memory limit, not the CPU limit, ends the bombs
  const roomy = hostilePlugin("hostile-mem", { cpuMs: 20_000, wallMs: 25_000 });
  beforeAll(async () => {
    ({ h, plugin } = await hostileSetup(mode));
    await h.sandbox.load(roomy);
  });
  afterAll(async () => h.close());

  it.each([
    ["loopSync", "a synchronous infinite loop"],
    ["loopMicrotask", "an endless microtask chain"],
    ["loopAfterAwait", "an infinite loop after awaiting a capability call"],
  ])("stops %s (%s) with AIRLOCK_SANDBOX_CPU_LIMIT", async (tool) => {
    const error = await h.callError(plugin, tool);
    expect(error.code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    await expectContained(h, plugin);
  });

  it("fails a call that returns while leaving an endless microtask chain with AIRLOCK_SANDBOX_CPU_LIMIT", async () => {
    const error = await h.callError(plugin, "leaveMicrotaskLoop");
    expect(error.code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    await expectContained(h, plugin);
  });

  it.each([
    ["leaveSpinLoop", "code left running after its call ended"],
    ["leaveBridgeLoop", "keeps calling ctx after its call ended"],
  ])("resets the isolate when %s keeps working after its call returned", async (tool, warning) => {
    const agent = `${tool}-agent`;
    expect((await h.call(plugin, tool, {}, { agent })).content).toEqual([{ type: "text", text: "returned" }]);
    await waitFor(() => h.logs.some((l) => l.includes(warning)));
    await expectContained(h, plugin, agent);
  });

  it("disposes an isolate whose heap passes memoryMb with AIRLOCK_SANDBOX_MEMORY_LIMIT", async () => {
    const error = await h.callError(roomy, "heapBomb");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    await expectContained(h, roomy);
  });

  it("counts ArrayBuffer memory against memoryMb (AIRLOCK_SANDBOX_MEMORY_LIMIT)", async () => {
    const error = await h.callError(roomy, "bufferBomb");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    await expectContained(h, roomy);
  });

  it("refuses one ArrayBuffer larger than memoryMb (AIRLOCK_SANDBOX_MEMORY_LIMIT)", async () => {
    const error = await h.callError(roomy, "hugeBuffer");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    await expectContained(h, roomy);
  });
});
