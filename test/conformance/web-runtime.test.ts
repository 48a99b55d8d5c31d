// The Web-standard runtime inside plugin isolates, in both sandbox modes: each global a plugin
// author expects from Workers and Deno works as the standards say, and timers are bounded by
// their call (they fire while it runs, the call waits for them like any await, and a throw in a
// callback fails the call that set it).
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import { makePlugin } from "../support/sandbox-fixtures.ts";
import { createHarness, type Harness, MODES } from "../support/sandbox-harness.ts";

// The global object's own properties that ECMA-262 (with Annex B's escape/unescape) and ECMA-402
// (Intl) define, as V8 ships them today. A global V8 adds later fails the comparison below until a
// reviewer puts it here (a new ECMAScript built-in) or in docs/sandbox.md's table (anything else).
const ECMASCRIPT_GLOBALS = [
  "AggregateError",
  "Array",
  "ArrayBuffer",
  "AsyncDisposableStack",
  "BigInt",
  "BigInt64Array",
  "BigUint64Array",
  "Boolean",
  "DataView",
  "Date",
  "DisposableStack",
  "Error",
  "EvalError",
  "FinalizationRegistry",
  "Float16Array",
  "Float32Array",
  "Float64Array",
  "Function",
  "Infinity",
  "Int16Array",
  "Int32Array",
  "Int8Array",
  "Intl",
  "Iterator",
  "JSON",
  "Map",
  "Math",
  "NaN",
  "Number",
  "Object",
  "Promise",
  "Proxy",
  "RangeError",
  "ReferenceError",
  "Reflect",
  "RegExp",
  "Set",
  "String",
  "SuppressedError",
  "Symbol",
  "SyntaxError",
  "TypeError",
  "URIError",
  "Uint16Array",
  "Uint32Array",
  "Uint8Array",
  "Uint8ClampedArray",
  "WeakMap",
  "WeakRef",
  "WeakSet",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "escape",
  "eval",
  "globalThis",
  "isFinite",
  "isNaN",
  "parseFloat",
  "parseInt",
  "undefined",
  "unescape",
];

/** The globals docs/sandbox.md's Web runtime table lists: each backticked name of its first column, up to its first ".". */
function documentedGlobals(): string[] {
  const doc = readFileSync(new URL("../../docs/sandbox.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## The Web runtime"));
  const table = section.slice(
    section.indexOf("| global |"),
    section.indexOf("\n\n", section.indexOf("| global |")),
  );
  const names = new Set<string>();
  for (const row of table.split("\n").slice(2)) {
    const first = row.split("|")[1] ?? "";
    for (const m of first.matchAll(/`([^`]+)`/g)) names.add((m[1] as string).split(".")[0] as string);
  }
  return [...names].sort();
}

const code = `globalThis.__airlockPlugin = { tools: {
  ownGlobals: async () => {
    console.log("console-canary-7f3a"); console.error("console-canary-7f3a");
    return { names: Object.getOwnPropertyNames(globalThis), symbols: Object.getOwnPropertySymbols(globalThis).length };
  },
  globals: async () => {
    const names = ["TextEncoder", "TextDecoder", "atob", "btoa", "URL", "URLSearchParams", "structuredClone",
      "crypto", "AbortController", "AbortSignal", "Event", "EventTarget", "DOMException", "Headers", "Request",
      "Response", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "queueMicrotask"];
    const out = {};
    for (const n of names) out[n] = typeof globalThis[n];
    out.enumerable = Object.keys(globalThis).filter((k) => names.includes(k));
    return out;
  },
  text: async ({ s }) => {
    const bytes = new TextEncoder().encode(s);
    const into = new Uint8Array(4);
    const r = new TextEncoder().encodeInto(s, into);
    const bad = new TextDecoder().decode(new Uint8Array([0x61, 0xf0, 0x9f, 0x92, 0x62, 0xed, 0xa0, 0x80, 0xc0, 0xaf]));
    let fatal = "";
    try { new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xff])); } catch (e) { fatal = e.constructor.name; }
    const dec = new TextDecoder();
    const streamed = dec.decode(bytes.subarray(0, 2), { stream: true }) + dec.decode(bytes.subarray(2));
    return { bytes: [...bytes], into: [...into], read: r.read, written: r.written,
      back: new TextDecoder().decode(bytes), streamed, bad, fatal,
      bom: new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])).length };
  },
  base64: async () => {
    let err = "";
    try { btoa("✓"); } catch (e) { err = e.name; }
    let bad = "";
    try { atob("abc*"); } catch (e) { bad = e.name; }
    return { b: btoa("hello\\u00ff"), a: atob(" aGVs bG8= "), err, bad, short: atob("YQ") };
  },
  url: async () => {
    const u = new URL("../b?x=1&y=%20z#f", "https://User:pw@EXAMPLE.com:443/a/c");
    const p = new URLSearchParams("a=1&b=2&a=3");
    p.append("c", "d e");
    let invalid = "";
    try { new URL("not a url"); } catch (e) { invalid = e.constructor.name; }
    return { href: u.href, host: u.host, path: u.pathname, q: u.searchParams.get("y"), all: p.getAll("a"),
      ps: p.toString(), invalid, idn: new URL("https://bücher.example/").hostname,
      canParse: typeof URL.canParse === "function" ? URL.canParse("https://x.y") : null };
  },
  // URL's code is evaluated on a context's first use, with the eval the runtime captured at install
  urlAfterPatchedEval: async () => {
    globalThis.eval = () => { throw new Error("patched eval"); };
    globalThis.Function = function () { throw new Error("patched Function"); };
    return { href: new URL("https://bücher.example/a/../b").href, req: new Request("https://x.example/?q").url };
  },
  clone: async () => {
    const src = { d: new Date(0), m: new Map([[1, "a"]]), s: new Set([2]), u: new Uint8Array([1, 2]), n: { deep: [1] } };
    src.self = src;
    const c = structuredClone(src);
    let fn = "";
    try { structuredClone(() => 1); } catch (e) { fn = e.name; }
    return { same: c === src, cyc: c.self === c, date: c.d instanceof Date && c.d.getTime() === 0,
      map: c.m.get(1), set: c.s.has(2), u: [...c.u], deep: c.n.deep[0], fn };
  },
  crypto: async () => {
    const a = crypto.getRandomValues(new Uint8Array(32));
    const b = crypto.getRandomValues(new Uint32Array(4));
    const uuid = crypto.randomUUID();
    const hex = (buf) => [...new Uint8Array(buf)].map((x) => x.toString(16).padStart(2, "0")).join("");
    const abc = new TextEncoder().encode("abc");
    let big = "";
    try { crypto.getRandomValues(new Uint8Array(65537)); } catch (e) { big = e.name; }
    let floats = "";
    try { crypto.getRandomValues(new Float64Array(2)); } catch (e) { floats = e.name; }
    return { nonZero: a.some((x) => x !== 0), distinct: a.join() !== crypto.getRandomValues(new Uint8Array(32)).join(),
      b: b.length, uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid),
      sha1: hex(await crypto.subtle.digest("SHA-1", abc)),
      sha256: hex(await crypto.subtle.digest({ name: "SHA-256" }, abc)),
      sha384: hex(await crypto.subtle.digest("SHA-384", abc)).slice(0, 16),
      sha512: hex(await crypto.subtle.digest("SHA-512", abc.buffer)).slice(0, 16), big, floats };
  },
  abort: async () => {
    const c = new AbortController();
    const seen = [];
    c.signal.addEventListener("abort", (e) => seen.push(e.type));
    c.signal.onabort = () => seen.push("onabort");
    c.abort();
    let thrown = "";
    try { c.signal.throwIfAborted(); } catch (e) { thrown = e.name; }
    const t = AbortSignal.timeout(20);
    await new Promise((r) => t.addEventListener("abort", r));
    const any = AbortSignal.any([new AbortController().signal, AbortSignal.abort("why")]);
    let illegal = "";
    try { new AbortSignal(); } catch (e) { illegal = e.constructor.name; }
    return { seen, aborted: c.signal.aborted, reason: c.signal.reason.name, thrown, timeout: t.reason.name,
      any: any.reason, illegal };
  },
  shapes: async (_input, ctx) => {
    const h = new Headers({ "X-A": " 1 " });
    h.append("x-a", "2");
    h.set("Content-Type", "text/plain");
    const req = new Request("https://api.test/x", { method: "post", headers: h, body: "hi" });
    const res = new Response(JSON.stringify({ ok: 1 }), { status: 201, headers: [["x-b", "3"]] });
    const json = Response.json({ j: 1 });
    const fetched = await ctx.fetch(new Request("https://api.test/r", { headers: { "x-c": "4" } }));
    const viaInit = await ctx.fetch("https://api.test/s", { method: "PUT", headers: new Headers({ "x-d": "5" }),
      body: new URLSearchParams("a=1") });
    let aborted = "";
    const ac = new AbortController();
    ac.abort();
    try { await ctx.fetch("https://api.test/t", { signal: ac.signal }); } catch (e) { aborted = e.name; }
    return { entries: [...h], get: h.get("X-A"), method: req.method, reqText: await req.text(), used: req.bodyUsed,
      status: res.status, ok: res.ok, resJson: await res.json(), hb: res.headers.get("x-b"),
      jsonType: json.headers.get("content-type"), fetched: { status: fetched.status, ok: fetched.ok,
        type: fetched.headers.get("content-type"), body: await fetched.json(), url: fetched.url,
        isResponse: fetched instanceof Response }, viaInit: viaInit.status, aborted };
  },
  timers: async () => {
    const order = [];
    await new Promise((resolve) => {
      setTimeout((x) => order.push("t20:" + x), 20, "arg");
      const cleared = setTimeout(() => order.push("cleared"), 5);
      clearTimeout(cleared);
      setTimeout(() => { order.push("t0"); queueMicrotask(() => order.push("micro")); }, 0);
      let left = 2;
      const done = () => { if (--left === 0) resolve(); };
      let n = 0;
      const iv = setInterval(() => { order.push("iv" + ++n); if (n === 3) { clearInterval(iv); done(); } }, 5);
      setTimeout(() => setTimeout(() => { order.push("nested"); done(); }, 10), 30);
    });
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 50));
    return { order, slept: Date.now() - t0 >= 45, id: typeof setTimeout(() => {}, 1) };
  },
  throwsInTimer: async () => {
    await new Promise((r) => { setTimeout(() => { throw new Error("boom in a timer"); }, 5); setTimeout(r, 500); });
    return "not reached";
  },
  throwsInMicrotask: async () => {
    queueMicrotask(() => { throw new Error("boom in a microtask"); });
    await new Promise((r) => setTimeout(r, 200));
    return "not reached";
  },
} };`;

describe.each(MODES)("the Web runtime inside the isolate (%s)", (mode) => {
  let h: Harness;
  let plugin: SandboxPlugin;
  beforeAll(async () => {
    h = await createHarness(mode);
    plugin = makePlugin({
      namespace: "web",
      code,
      tools: [
        "ownGlobals",
        "globals",
        "text",
        "base64",
        "url",
        "urlAfterPatchedEval",
        "clone",
        "crypto",
        "abort",
        "shapes",
        "timers",
        "throwsInTimer",
        "throwsInMicrotask",
      ],
      limits: { wallMs: 5000 },
    });
    await h.sandbox.load(plugin);
  });
  afterAll(async () => h.close());

  const run = async (tool: string, input: unknown = {}) =>
    (await h.call(plugin, tool, input)).structuredContent;

  it("defines every global, none of them enumerable", async () => {
    const out = (await run("globals")) as Record<string, unknown>;
    expect(out.enumerable).toEqual([]);
    for (const [name, type] of Object.entries(out))
      if (name !== "enumerable")
        expect([name, type]).toEqual([name, expect.stringMatching(/function|object/)]);
    expect(out.crypto).toBe("object");
  });

  it("has no global but the ECMAScript built-ins and the ones docs/sandbox.md's table lists", async () => {
    const documented = documentedGlobals();
    expect(documented).toEqual(
      expect.arrayContaining(["Crypto", "SubtleCrypto", "console", "crypto", "self"]),
    );
    const out = (await run("ownGlobals")) as { names: string[]; symbols: number };
    const actual = out.names.filter((n) => n !== "__airlockPlugin"); // the plugin's own export
    expect(out.symbols).toBe(0);
    expect(actual.filter((n) => !ECMASCRIPT_GLOBALS.includes(n)).sort()).toEqual(documented);
    expect(ECMASCRIPT_GLOBALS.filter((n) => !actual.includes(n))).toEqual([]);
    expect(h.everything()).not.toContain("console-canary-7f3a"); // console writes nowhere
  });

  it("encodes and decodes UTF-8 as the Encoding standard says", async () => {
    expect(await run("text", { s: "é😀" })).toEqual({
      bytes: [0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80],
      into: [0xc3, 0xa9, 0, 0],
      read: 1,
      written: 2,
      back: "é😀",
      streamed: "é😀",
      bad: "a\ufffdb\ufffd\ufffd\ufffd\ufffd\ufffd",
      fatal: "TypeError",
      bom: 1,
    });
  });

  it("has forgiving atob and Latin-1 btoa", async () => {
    expect(await run("base64")).toEqual({
      b: "aGVsbG//",
      a: "hello",
      err: "InvalidCharacterError",
      bad: "InvalidCharacterError",
      short: "a",
    });
  });

  it("parses URLs with the WHATWG URL Standard", async () => {
    expect(await run("url")).toEqual({
      href: "https://User:pw@example.com/b?x=1&y=%20z#f",
      host: "example.com",
      path: "/b",
      q: " z",
      all: ["1", "3"],
      ps: "a=1&b=2&a=3&c=d+e",
      invalid: "TypeError",
      idn: "xn--bcher-kva.example",
      canParse: true,
    });
  });

  it("loads URL in a context whose code replaced eval and Function first", async () => {
    const out = await h.call(plugin, "urlAfterPatchedEval", {}, { agent: "patcher" });
    expect(out.structuredContent).toEqual({
      href: "https://xn--bcher-kva.example/b",
      req: "https://x.example/?q",
    });
  });

  it("clones structured data and refuses functions", async () => {
    expect(await run("clone")).toEqual({
      same: false,
      cyc: true,
      date: true,
      map: "a",
      set: true,
      u: [1, 2],
      deep: 1,
      fn: "DataCloneError",
    });
  });

  it("gives random values, UUIDs and SHA digests", async () => {
    expect(await run("crypto")).toEqual({
      nonZero: true,
      distinct: true,
      b: 4,
      uuid: true,
      sha1: "a9993e364706816aba3e25717850c26c9cd0d89d",
      sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      sha384: "cb00753f45a35e8b",
      sha512: "ddaf35a193617aba",
      big: "QuotaExceededError",
      floats: "TypeMismatchError",
    });
  });

  it("aborts with AbortController, AbortSignal.timeout and AbortSignal.any", async () => {
    expect(await run("abort")).toEqual({
      seen: ["onabort", "abort"],
      aborted: true,
      reason: "AbortError",
      thrown: "AbortError",
      timeout: "TimeoutError",
      any: "why",
      illegal: "TypeError",
    });
  });

  it("builds Headers, Request and Response, and ctx.fetch takes and returns them", async () => {
    expect(await run("shapes")).toEqual({
      entries: [
        ["content-type", "text/plain"],
        ["x-a", "1, 2"],
      ],
      get: "1, 2",
      method: "POST",
      reqText: "hi",
      used: true,
      status: 201,
      ok: true,
      resJson: { ok: 1 },
      hb: "3",
      jsonType: "application/json",
      fetched: {
        status: 200,
        ok: true,
        type: "application/json",
        body: { greeting: "héllo ✓ 😀" },
        url: "https://api.test/r",
        isResponse: true,
      },
      viaInit: 200,
      aborted: "AbortError",
    });
    const sent = h.fetchRequests.slice(-2) as Array<
      [string, { method?: string; headers?: object; body?: Uint8Array }]
    >;
    expect(sent[0]?.[0]).toBe("https://api.test/r");
    expect(sent[0]?.[1].headers).toEqual({ "x-c": "4" });
    expect(sent[1]?.[1]).toMatchObject({
      method: "PUT",
      headers: { "x-d": "5", "content-type": "application/x-www-form-urlencoded;charset=UTF-8" },
    });
    expect(new TextDecoder().decode(sent[1]?.[1].body)).toBe("a=1");
  });

  it("runs timers in due order while the call waits for them", async () => {
    const out = (await run("timers")) as { order: string[]; slept: boolean; id: string };
    expect([out.slept, out.id]).toEqual([true, "number"]);
    expect([...out.order].sort()).toEqual(["iv1", "iv2", "iv3", "micro", "nested", "t0", "t20:arg"]);
    const at = (name: string) => out.order.indexOf(name);
    // due order; a microtask a callback queued runs before the next callback; "nested" (armed by
    // a timer due at 30 ms) after t20. Not "nested" after iv3: an interval is re-armed from when
    // it ran, so a stall of 25 ms before iv1 can put iv3 after "nested"
    expect(out.order.slice(0, 3)).toEqual(["t0", "micro", "iv1"]);
    expect(at("iv1") < at("iv2") && at("iv2") < at("iv3")).toBe(true);
    expect(at("nested")).toBeGreaterThan(at("t20:arg"));
  });

  it("fails the call whose timer or microtask callback threw", async () => {
    const a = await h.callError(plugin, "throwsInTimer");
    expect([a.code, a.message]).toEqual(["AIRLOCK_SANDBOX_TOOL_THREW", "boom in a timer"]);
    const b = await h.callError(plugin, "throwsInMicrotask");
    expect([b.code, b.message]).toEqual(["AIRLOCK_SANDBOX_TOOL_THREW", "boom in a microtask"]);
  });
});
