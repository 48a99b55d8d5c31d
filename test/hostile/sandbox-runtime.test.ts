// Hostile: the Web runtime inside the isolate (timers, TextEncoder, URL, Headers, crypto, ...)
// gives plugin code no way to outlive its call, flood the host, reach the host or tamper with
// another agent's or plugin's runtime. Both sandbox modes, the real bridge and store; every case
// asserts its exact outcome, that the host still serves a normal call and that the canary secret
// appears in no output, log or audit row.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import { makePlugin } from "../support/sandbox-fixtures.ts";
import { type Harness, MODES } from "../support/sandbox-harness.ts";
import { CANARY, expectContained, hostileSetup } from "../support/sandbox-hostile.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const code = `globalThis.__airlockPlugin = { tools: {
  millionTimers: async () => {
    for (let i = 0; i < 1e6; i++) setTimeout(() => {}, 1000);
    return "not reached";
  },
  millionCaught: async () => {
    const ids = [];
    let code = "";
    for (let i = 0; i < 1e6; i++) {
      try { ids.push(setTimeout(() => {}, 1000)); } catch (e) { code = e.code; break; }
    }
    for (const id of ids) clearTimeout(id);
    await new Promise((r) => setTimeout(r, 20)); // cleared timers free their places
    return { accepted: ids.length, code };
  },
  leaveTimers: async (_input, ctx) => {
    globalThis.ticks = 0;
    setInterval(() => { globalThis.ticks++; }, 0);
    setTimeout(() => { globalThis.lateTimer = "ran"; ctx.state.set("late", "ran"); }, 30);
    queueMicrotask(() => { globalThis.micro = "ran"; });
    globalThis.later = () => setTimeout(() => { globalThis.lateTimer = "ran via a later call"; }, 0);
    return { left: true };
  },
  callLater: async () => { globalThis.later(); return { armed: true }; },
  peek: async (_input, ctx) => ({ ticks: globalThis.ticks, lateTimer: globalThis.lateTimer ?? null,
    micro: globalThis.micro ?? null, late: (await ctx.state.get("late")) ?? null }),
  timerInTimer: async () => {
    let fires = 0;
    const tick = () => { fires++; setTimeout(tick, 0); };
    setTimeout(tick, 0);
    await new Promise((r) => setTimeout(r, 200));
    return { fires };
  },
  timerInTimerForever: async () => {
    const tick = () => setTimeout(tick, 0);
    tick();
    await new Promise(() => {});
  },
  intervalForever: async () => {
    setInterval(() => {}, 1);
    await new Promise(() => {});
  },
  spinInTimer: async () => {
    await new Promise((r) => setTimeout(() => { for (;;) {} }, 5));
  },
  hugeDelays: async () => {
    const ids = [1e12, Infinity, 2 ** 32 + 5, 2 ** 31, -5, NaN, "abc", "7"].map((d) => typeof setTimeout(() => {}, d));
    const winner = await new Promise((r) => {
      setTimeout(() => r("wrapped"), 2 ** 32 + 5);
      setTimeout(() => r("wrapped"), 1e12);
      setTimeout(() => r("no wrap-around"), 100);
    });
    let string = "";
    try { setTimeout("globalThis.evaluated = 1", 0); } catch (e) { string = e.constructor.name; }
    return { ids, winner, string };
  },
  tamper: async (_input, ctx) => {
    TextEncoder.prototype.encode = () => new Uint8Array([1, 2, 3]);
    TextDecoder.prototype.decode = () => "tampered";
    globalThis.URL = function FakeURL() { return { href: "https://evil.test/" }; };
    Headers.prototype.get = () => "tampered";
    Response.prototype.text = async () => "tampered";
    Map.prototype.get = () => ({ due: 0, seq: 424242, ids: new Set([1]) });
    Map.prototype.set = function () { return this; };
    Set.prototype.forEach = () => {};
    Set.prototype[Symbol.iterator] = function* () { yield 99; };
    Array.prototype[Symbol.iterator] = function* () { yield "x"; };
    const handle = await ctx.artifacts.put({ buffer: "é✓", filename: "t.txt", mime: "text/plain" });
    const art = await ctx.artifacts.take(handle);
    const res = await ctx.fetch("https://api.test/x");
    const body = await (Object.getPrototypeOf(Response.prototype).text.call(res));
    return { bytes: Array.from({ length: art.buffer.length }, (_, i) => art.buffer[i]), body: body.length > 0 ? "decoded" : "empty" };
  },
  timersAfterTamper: async () => {
    Map.prototype.get = () => undefined;
    Set.prototype.add = () => { throw new Error("no"); };
    return await new Promise((r) => setTimeout(() => r({ fired: true }), 10));
  },
  clean: async () => ({ encode: Array.from(new TextEncoder().encode("é")), url: new URL("https://a.test/b").href,
    headers: new Headers({ a: "1" }).get("a") }),
  reach: async () => {
    const seen = new Set();
    const found = [];
    const bad = ["applySync", "applySyncPromise", "derefInto", "copyInto", "copySync", "getSync", "setSync", "typeof"];
    const names = ["TextEncoder", "TextDecoder", "atob", "btoa", "URL", "URLSearchParams", "structuredClone", "crypto",
      "Crypto", "SubtleCrypto", "AbortController", "AbortSignal", "Event", "EventTarget", "DOMException", "Headers",
      "Request", "Response", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "queueMicrotask", "self"];
    const walk = (v, path, depth) => {
      if ((typeof v !== "object" && typeof v !== "function") || v === null || seen.has(v) || depth > 6) return;
      seen.add(v);
      for (const k of Reflect.ownKeys(v)) {
        if (typeof k === "string" && (bad.includes(k) || (k.startsWith("__airlock") && k !== "__airlockPlugin"))) found.push(path + "." + k);
        const d = Object.getOwnPropertyDescriptor(v, k);
        if (d && "value" in d) walk(d.value, path + "." + String(k), depth + 1);
      }
      walk(Object.getPrototypeOf(v), path + ".__proto__", depth + 1);
    };
    for (const n of names) walk(globalThis[n], n, 0);
    walk(new AbortController(), "controller", 0);
    walk(new Response("x"), "response", 0);
    walk(new URL("https://a.test/"), "url", 0);
    // stack frames of runtime code called from a callback: strict, so no receivers or functions
    const leaked = [];
    let runtimeFrames = 0;
    Error.prepareStackTrace = (_e, frames) => frames.map((f) => {
      if (f.getFileName() !== "airlock:bootstrap.js") return "";
      runtimeFrames++;
      for (const x of [f.getThis(), f.getFunction()]) if (x !== undefined) leaked.push(String(typeof x));
      return "";
    });
    try { atob("*"); } catch (e) { void e.stack; }
    await new Promise((r) => setTimeout(() => { void new Error("in a timer").stack; r(); }, 1));
    delete Error.prepareStackTrace;
    const globalsLeft = Object.getOwnPropertyNames(globalThis).filter((k) => k.startsWith("__airlock") && k !== "__airlockPlugin");
    return { found, leaked, runtimeFrames: runtimeFrames > 0, globalsLeft, sab: typeof SharedArrayBuffer };
  },
  echo: async (input) => ({ echoed: input }),
} };`;

const TOOLS = [
  "millionTimers",
  "millionCaught",
  "leaveTimers",
  "callLater",
  "peek",
  "timerInTimer",
  "timerInTimerForever",
  "intervalForever",
  "spinInTimer",
  "hugeDelays",
  "tamper",
  "timersAfterTamper",
  "clean",
  "reach",
  "echo",
];

describe.each(MODES)("the isolate's Web runtime under attack (%s)", (mode) => {
  let h: Harness;
  let plugin: SandboxPlugin;
  let other: SandboxPlugin;
  beforeAll(async () => {
    ({ h } = await hostileSetup(mode));
    const limits = { cpuMs: 1000, wallMs: 2500, memoryMb: 64 };
    plugin = makePlugin({ namespace: "runtime", code, tools: TOOLS, limits });
    other = makePlugin({ namespace: "bystander", code, tools: TOOLS, limits });
    await h.sandbox.load(plugin);
    await h.sandbox.load(other);
  });
  afterAll(async () => h.close());

  it("refuses the 1001st pending timer of a call with AIRLOCK_SANDBOX_TIMER_LIMIT", async () => {
    const error = await h.callError(plugin, "millionTimers");
    expect(error.code).toBe("AIRLOCK_SANDBOX_TIMER_LIMIT");
    const caught = (await h.call(plugin, "millionCaught")).structuredContent as Record<string, unknown>;
    expect([caught.accepted, caught.code]).toEqual([1000, "AIRLOCK_SANDBOX_TIMER_LIMIT"]);
    await expectContained(h, plugin);
  });

  it("cancels what a call left pending when it ended: no timer, interval or later-armed timer runs", async () => {
    expect((await h.call(plugin, "leaveTimers", {}, { agent: "agent-b" })).structuredContent).toEqual({
      left: true,
    });
    expect((await h.call(plugin, "callLater", {}, { agent: "agent-b" })).structuredContent).toEqual({
      armed: true,
    });
    await sleep(150);
    const seen = (await h.call(plugin, "peek", {}, { agent: "agent-b" })).structuredContent as Record<
      string,
      unknown
    >;
    // the microtask ran inside the call (before it settled); no timer of an ended call ran after it
    expect(seen).toEqual({ ticks: 0, lateTimer: null, micro: "ran", late: null });
    expect(h.audits.filter((a) => a.action === "state.set")).toEqual([]);
    await expectContained(h, plugin, "agent-b");
  });

  it("clamps a timer that re-arms itself (4 ms once nested) and ends one that never stops at the wall deadline", async () => {
    const { fires } = (await h.call(plugin, "timerInTimer")).structuredContent as { fires: number };
    expect(fires).toBeGreaterThan(5);
    expect(fires).toBeLessThanOrEqual(200 / 4 + 6);
    const error = await h.callError(plugin, "timerInTimerForever");
    expect([error.code, error.details?.reason]).toEqual(["AIRLOCK_SANDBOX_TIMEOUT", "wallMs"]);
    await expectContained(h, plugin);
  });

  it("ends a call whose interval is never cleared at its wall deadline", async () => {
    const error = await h.callError(plugin, "intervalForever");
    expect([error.code, error.details?.reason]).toEqual(["AIRLOCK_SANDBOX_TIMEOUT", "wallMs"]);
    await expectContained(h, plugin);
  });

  it("stops a timer callback that spins with AIRLOCK_SANDBOX_CPU_LIMIT", async () => {
    const error = await h.callError(plugin, "spinInTimer");
    expect(error.code).toBe("AIRLOCK_SANDBOX_CPU_LIMIT");
    await expectContained(h, plugin);
  });

  it("caps huge delays instead of wrapping them, and evaluates no string of code", async () => {
    expect((await h.call(plugin, "hugeDelays")).structuredContent).toEqual({
      ids: Array(8).fill("number"),
      winner: "no wrap-around",
      string: "TypeError",
    });
    await expectContained(h, plugin);
  });

  it("keeps prototype tampering inside the tampering agent's own context", async () => {
    const tampered = (await h.call(plugin, "tamper", {}, { agent: "agent-a" })).structuredContent;
    // the bootstrap's own UTF-8 (artifacts) and the fetch reply are untouched by the patches
    expect(tampered).toEqual({ bytes: [0xc3, 0xa9, 0xe2, 0x9c, 0x93], body: "decoded" });
    const fresh = { encode: [0xc3, 0xa9], url: "https://a.test/b", headers: "1" };
    expect((await h.call(plugin, "clean", {}, { agent: "agent-b" })).structuredContent).toEqual(fresh);
    expect((await h.call(other, "clean", {}, { agent: "agent-a" })).structuredContent).toEqual(fresh);
    // patched Map/Set prototypes do not change the runtime's own timer bookkeeping
    expect((await h.call(plugin, "timersAfterTamper", {}, { agent: "agent-c" })).structuredContent).toEqual({
      fired: true,
    });
    await expectContained(h, plugin, "agent-b");
  });

  it("exposes no Reference, host method or __airlock global through the provided APIs or stack frames", async () => {
    expect((await h.call(plugin, "reach", {}, { agent: "agent-d" })).structuredContent).toEqual({
      found: [],
      leaked: [],
      runtimeFrames: true,
      globalsLeft: [],
      sab: "undefined",
    });
    expect(h.everything()).not.toContain(CANARY);
    await expectContained(h, plugin);
  });
});
