// Which worker serves a call: the pair's last worker when it is idle, else the least busy started
// holder; and the affinity memory keeps at least MAX_AFFINITY recent pairs.
import { describe, expect, it } from "vitest";
import { resolveLimits } from "../limits.ts";
import { fixtureManifest } from "../plugin-fixture.ts";
import { MAX_AFFINITY, PluginPlacement } from "./worker-placement.ts";
import type { WorkerSlot } from "./worker-slot.ts";

const slot = (name: string, started = true) =>
  ({ name, started, busy: 0 }) as unknown as WorkerSlot & { busy: number; started: boolean };

function placement(...slots: WorkerSlot[]) {
  const plugin = {
    key: "placed@1.0.0",
    manifest: fixtureManifest("placed", "1.0.0", "", [{ name: "t" }]),
    code: "",
    limits: resolveLimits({}, {}),
  };
  const placed = new PluginPlacement(plugin, slots[0] as WorkerSlot, false);
  for (const s of slots.slice(1)) placed.holders.set(s, { inFlight: 0, served: 0 });
  return placed;
}

describe("plugin placement", () => {
  it("prefers the pair's last worker while idle, else the least busy started holder", () => {
    const a = slot("a");
    const b = slot("b");
    const cold = slot("cold", false);
    const placed = placement(a, b, cold);
    placed.remember("agent\u0000c1", b);
    expect(placed.pick("agent\u0000c1")).toBe(b);
    b.busy = 1;
    expect(placed.pick("agent\u0000c1")).toBe(a);
    a.busy = 2;
    expect(placed.pick("agent\u0000c1")).toBe(b); // least busy; the not-started one is never picked
    expect(placed.pick("other\u0000c1")).toBe(b);
  });

  it("picks among all holders while none has started", () => {
    const a = slot("a", false);
    const b = slot("b", false);
    const placed = placement(a, b);
    a.busy = 1;
    expect(placed.pick("x")).toBe(b);
  });

  it("remembers at least the MAX_AFFINITY most recent pairs", () => {
    const a = slot("a");
    const b = slot("b");
    const placed = placement(a, b);
    const total = MAX_AFFINITY * 2 + 10;
    for (let i = 0; i < total; i++) placed.remember(`pair-${i}`, b);
    // every one of the last MAX_AFFINITY pairs still goes to b (a forgotten pair would go to a)
    for (let i = total - MAX_AFFINITY; i < total; i++) expect(placed.pick(`pair-${i}`)).toBe(b);
    expect(placed.pick("pair-0")).toBe(a);
  });
});
