// Hostile: many agents, one plugin. Every agent gets its own context in the plugin's isolate,
// and each context carries the bundle's top-level heap; 1,000 agents would fill any isolate if
// contexts were kept. The sandbox keeps at most maxContextsPerIsolate (LRU of idle ones), so
// every call gets its correct, agent-separated result or a stable AIRLOCK_SANDBOX_* code (never
// a raw isolated-vm error) and the sandbox stays healthy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import { makePlugin } from "../support/sandbox-fixtures.ts";
import type { Harness } from "../support/sandbox-harness.ts";
import { MODES } from "../support/sandbox-harness.ts";
import { expectContained, hostileSetup } from "../support/sandbox-hostile.ts";

// ~0.5 MB of heap per context: the 64 kept by default (≈ 32 MB) fit in 128 MB with room for the
// garbage of evicted ones on a busy machine; 1,000 (≈ 500 MB) would not
const CROWD_BUNDLE = `
const heavy = Array.from({ length: 8192 }, (_, i) => ({ i, n: i * 2 }));
let calls = 0;
globalThis.__airlockPlugin = {
  namespace: "crowd",
  version: "1.0.0",
  tools: {
    whoami: async (_input, ctx) => ({ agent: ctx.instanceId, calls: ++calls, heavy: heavy.length }),
    echo: async (input) => ({ echoed: input }),
  },
};
`;

const AGENTS = 1000;
const PARALLEL = 8;

describe.each(MODES)("a thousand agents on one plugin (%s)", (mode) => {
  let h: Harness;
  let crowd: SandboxPlugin;
  beforeAll(async () => {
    ({ h } = await hostileSetup(mode));
    crowd = makePlugin({
      namespace: "crowd",
      code: CROWD_BUNDLE,
      tools: ["whoami", "echo"],
      limits: { cpuMs: 5_000, wallMs: 25_000, memoryMb: 128 },
    });
    await h.sandbox.load(crowd);
  });
  afterAll(async () => h.close());

  it("gives each of 1,000 agents its own context's result or a stable sandbox code", async () => {
    const outcomes: string[] = [];
    let next = 0;
    const lane = async () => {
      while (next < AGENTS) {
        const agent = `crowd-agent-${next++}`;
        try {
          const result = await h.call(crowd, "whoami", {}, { agent });
          // a fresh context per agent: its module-level counter starts at 1
          expect(result.structuredContent).toEqual({ agent, calls: 1, heavy: 8192 });
          outcomes.push("ok");
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          expect(String(code)).toMatch(/^AIRLOCK_SANDBOX_(MEMORY_LIMIT|ISOLATE_RESET)$/);
          outcomes.push(String(code));
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, lane));
    expect(outcomes).toHaveLength(AGENTS);
    // eviction keeps the isolate within its limit: the isolate is never reset, every call succeeds
    expect(outcomes.filter((o) => o !== "ok")).toEqual([]);
    // an agent seen before keeps its context while it stays among the recently used
    const again = await h.call(crowd, "whoami", {}, { agent: `crowd-agent-${AGENTS - 1}` });
    expect(again.structuredContent).toEqual({ agent: `crowd-agent-${AGENTS - 1}`, calls: 2, heavy: 8192 });
    await expectContained(h, crowd, "crowd-agent-0");
  }, 120_000);

  it("answers AIRLOCK_SANDBOX_MEMORY_LIMIT when creating an agent's context fills the isolate", async () => {
    // each context holds ~4 MB: a handful of kept contexts fill 16 MB before eviction could help
    const fat = makePlugin({
      namespace: "fat",
      code: CROWD_BUNDLE.replace("length: 8192", "length: 131072").replace('"crowd"', '"fat"'),
      tools: ["whoami", "echo"],
      limits: { cpuMs: 5_000, wallMs: 25_000, memoryMb: 16 },
    });
    await h.sandbox.load(fat);
    const codes = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const agent = `fat-agent-${i}`;
      try {
        const result = await h.call(fat, "whoami", {}, { agent });
        expect(result.structuredContent).toEqual({ agent, calls: 1, heavy: 131072 });
        codes.add("ok");
      } catch (error) {
        codes.add(String((error as { code?: unknown }).code));
      }
    }
    expect(codes).toContain("AIRLOCK_SANDBOX_MEMORY_LIMIT");
    expect([...codes].filter((c) => c !== "ok" && c !== "AIRLOCK_SANDBOX_MEMORY_LIMIT")).toEqual([]);
    await expectContained(h, crowd, "crowd-agent-0");
  }, 120_000);
});
