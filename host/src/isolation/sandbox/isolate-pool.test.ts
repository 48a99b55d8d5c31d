// The pool hands out isolates with one context prepared (bootstrap run, no plugin code) and the
// References that context holds; a generation adopts them once, in its own entry mode.
import { describe, expect, it } from "vitest";
import { IsolatePool } from "./isolate-pool.ts";
import { CallTimers } from "./runtime/index.ts";
import { IsolateWiring } from "./wiring.ts";

const timers = () =>
  new CallTimers(
    1000,
    () => false,
    () => undefined,
  );

describe("isolate pool", () => {
  it("hands out an isolate whose prepared context ran the bootstrap and nothing else", async () => {
    const pool = new IsolatePool({ syncEntry: true });
    try {
      const fresh = await pool.take(32);
      const probe = (code: string) => fresh.prepared.context.evalSync(code);
      // the bootstrap took and deleted its References and removed what the heap limit cannot see
      expect(
        probe(
          "JSON.stringify([typeof __airlockBridge, typeof __airlockSend, typeof __airlockRuntime, typeof WebAssembly])",
        ),
      ).toBe(JSON.stringify(["undefined", "undefined", "undefined", "undefined"]));
      // no plugin code: the bundle global is not there, and the Web runtime is
      expect(probe("JSON.stringify([typeof __airlockPlugin, typeof URL, typeof setTimeout])")).toBe(
        JSON.stringify(["undefined", "function", "function"]),
      );
      // its run() answers a probe (no tools yet) without a plugin
      const names = await fresh.prepared.run.apply(undefined, [0, "", "", "", 0], {
        result: { promise: true },
      });
      expect(names).toBe("T");
      expect(fresh.wiring.sendRef).not.toBeNull();
      fresh.isolate.dispose();
      // the next one was made in the background, for the same memory limit, with its own wiring
      const next = await pool.take(32);
      expect(next.wiring).not.toBe(fresh.wiring);
      expect(next.isolate.isDisposed).toBe(false);
      next.isolate.dispose();
    } finally {
      pool.close();
    }
  });

  it("makes in-process isolates without the synchronous way out", async () => {
    const pool = new IsolatePool({ syncEntry: false });
    try {
      const fresh = await pool.take(32);
      expect(fresh.wiring.sendRef).toBeNull();
      fresh.isolate.dispose();
    } finally {
      pool.close();
    }
  });
});

describe("isolate wiring", () => {
  it("refuses a ctx call as for an ended call until a generation adopts it, then forwards", async () => {
    const wiring = new IsolateWiring(true);
    const args = [1, "state", "get", ["k"]];
    // a ctx call as the isolate makes it through the bridge
    const ask = (w: IsolateWiring) =>
      w.bridgeRef.apply(undefined, args, {
        arguments: { copy: true },
        result: { copy: true, promise: true },
      });
    expect(await ask(wiring)).toEqual({
      ok: false,
      code: "AIRLOCK_BRIDGE_TOKEN_INVALID",
      message: "this call has ended",
    });
    expect(wiring.sendRef?.applySync(undefined, args, { arguments: { copy: true } })).toBe(
      "AIRLOCK_BRIDGE_TOKEN_INVALID",
    );
    wiring.adopt({
      timers: timers(),
      bridge: async (_seq, capability, method) => ({
        ok: true,
        value: `${String(capability)}.${String(method)}`,
      }),
      send: () => 7,
    });
    expect(await ask(wiring)).toEqual({
      ok: true,
      value: "state.get",
    });
    expect(wiring.sendRef?.applySync(undefined, args, { arguments: { copy: true } })).toBe(7);
  });

  it("is adopted once, and only by a generation of its own entry mode", () => {
    const bridge = async () => ({ ok: true });
    expect(() => new IsolateWiring(true).adopt({ timers: timers(), bridge })).toThrow(/entry mode/);
    expect(() => new IsolateWiring(false).adopt({ timers: timers(), bridge, send: () => 1 })).toThrow(
      /entry mode/,
    );
    const wiring = new IsolateWiring(false);
    wiring.adopt({ timers: timers(), bridge });
    expect(() => wiring.adopt({ timers: timers(), bridge })).toThrow(/already adopted/);
  });
});
