// Hostile: resource exhaustion — infinite loops (sync, in microtasks, after an await), heap and
// ArrayBuffer memory bombs, a single huge allocation. Each earns its exact code, the plugin's
// isolate is replaced when it had to be, and the host serves the next call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/sandbox/types.ts";
import type { Harness } from "../support/sandbox-harness.ts";
import { MODES } from "../support/sandbox-harness.ts";
import { expectContained, hostileSetup } from "../support/sandbox-hostile.ts";

describe.each(MODES)("resource exhaustion (%s)", (mode) => {
  let h: Harness;
  let plugin: SandboxPlugin;
  beforeAll(async () => {
    ({ h, plugin } = await hostileSetup(mode));
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

  it("disposes an isolate whose heap passes memoryMb with AIRLOCK_SANDBOX_MEMORY_LIMIT", async () => {
    const error = await h.callError(plugin, "heapBomb");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    await expectContained(h, plugin);
  });

  it("counts ArrayBuffer memory against memoryMb (AIRLOCK_SANDBOX_MEMORY_LIMIT)", async () => {
    const error = await h.callError(plugin, "bufferBomb");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    await expectContained(h, plugin);
  });

  it("refuses one ArrayBuffer larger than memoryMb (AIRLOCK_SANDBOX_MEMORY_LIMIT)", async () => {
    const error = await h.callError(plugin, "hugeBuffer");
    expect(error.code).toBe("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    await expectContained(h, plugin);
  });
});
