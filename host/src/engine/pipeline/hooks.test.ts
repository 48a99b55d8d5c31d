import { describe, expect, it } from "vitest";
import { createHookRegistry } from "./hooks.ts";

const ctx = { agent: "a", runId: "r", toolName: "ns:tool", input: { n: 1 } };

describe("hook registry", () => {
  it("runs before-hooks in registration order, each seeing the previous rewrite", async () => {
    const hooks = createHookRegistry();
    const seen: unknown[] = [];
    hooks.addBefore(({ input }) => {
      seen.push(input);
      return { input: { ...input, first: true } };
    });
    hooks.addBefore(({ input }) => {
      seen.push(input);
      return { input: { ...input, second: true } };
    });
    const out = await hooks.runBefore(ctx);
    expect(seen).toEqual([{ n: 1 }, { n: 1, first: true }]);
    expect(out).toEqual({ kind: "proceed", input: { n: 1, first: true, second: true } });
  });

  it("stops at the first block and does not run later hooks", async () => {
    const hooks = createHookRegistry();
    let later = false;
    hooks.addBefore(() => ({ block: true, reason: "outside the workspace" }));
    hooks.addBefore(() => {
      later = true;
      return { block: true, reason: "second" };
    });
    expect(await hooks.runBefore(ctx)).toEqual({ kind: "blocked", reason: "outside the workspace" });
    expect(later).toBe(false);
  });

  it("turns a throwing or malformed before-hook into a failure that blocks", async () => {
    const hooks = createHookRegistry();
    hooks.addBefore(() => {
      throw new Error("policy service down");
    });
    const out = await hooks.runBefore(ctx);
    expect(out.kind).toBe("failed");
    const malformed = createHookRegistry();
    malformed.addBefore(() => ({ input: "nope" }) as never);
    expect((await malformed.runBefore(ctx)).kind).toBe("failed");
  });

  it("ignores in-place mutation: only a returned {input} rewrites", async () => {
    const hooks = createHookRegistry();
    hooks.addBefore(({ input }) => {
      input.n = 99;
      return undefined;
    });
    expect(await hooks.runBefore(ctx)).toEqual({ kind: "proceed", input: { n: 1 } });
  });

  it("treats {block: false} as allowing the call", async () => {
    const hooks = createHookRegistry();
    hooks.addBefore(() => ({ block: false }) as never);
    expect(await hooks.runBefore(ctx)).toEqual({ kind: "proceed", input: { n: 1 } });
  });

  it("unregisters a hook with the function its registration returned", async () => {
    const hooks = createHookRegistry();
    const off = hooks.addBefore(() => ({ block: true, reason: "x" }));
    off();
    expect((await hooks.runBefore(ctx)).kind).toBe("proceed");
  });

  it("runs every after-hook even when one throws, reporting the throw", async () => {
    const hooks = createHookRegistry();
    const order: string[] = [];
    hooks.addAfter(() => {
      order.push("a");
      throw new Error("boom");
    });
    hooks.addAfter(async () => {
      order.push("b");
    });
    const errors: unknown[] = [];
    await hooks.runAfter({ ...ctx, blocked: false, durationMs: 1 }, (e) => errors.push(e));
    expect(order).toEqual(["a", "b"]);
    expect(errors).toHaveLength(1);
  });
});
