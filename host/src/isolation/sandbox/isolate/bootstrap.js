// Bootstrap of one agent's context inside a plugin's isolate. It runs before any plugin code,
// as a classic strict-mode script whose completion value is the `run` function the host calls.
// Contract:
// - It takes the bridge Reference from globalThis.__airlockBridge and deletes that global, so
//   plugin code can never reach a Reference, ExternalCopy, Callback or the ivm module.
// - It captures every intrinsic it uses before plugin code runs; plugin code may patch globals
//   and prototypes of its own context afterwards without changing what this code does.
// - It removes WebAssembly, SharedArrayBuffer and Atomics (memory the heap limit cannot see).
// - run(seq, tool, inputJson, ctxJson, maxResultBytes, callCap) -> "R" + result JSON, or "E" + the
//   JSON strings code, message and errorCode on three lines, prefixed with "M<n>\n" when the call's
//   ctx refused n calls itself. The result is serialised here from own data properties only.
// - The cap: a call's ctx lets callCap + 1 calls cross (the host ends the call at the one past
//   its cap); every later one is refused here with AIRLOCK_BRIDGE_CALL_LIMIT and only counted
//   (the count leaves with the envelope), so a flood costs the plugin its own CPU (cpuMs) and
//   copies nothing out of the isolate.
// - It installs the Web runtime (../runtime/isolate/index.js, run just before this script in the
//   same compiled source): it takes and deletes globalThis.__airlockWebRuntime and the runtime's
//   host primitives Reference (__airlockRuntime), and tells the runtime which call runs (its
//   timers belong to that call and are dropped when it settles).
// - The completion value is the frozen triple [run, settle, fire]; fire(seq) runs seq's due timers. With globalThis.__airlockSend (taken
//   and deleted like the bridge) a ctx call leaves synchronously through send(): send() returns
//   its answer ([true, value] or [false, code, message]) when the host answered at once, else a
//   number, and the promise is settled when the host enters settle(bid, ok, value | code,
//   message); without it, it crosses the bridge Reference with async apply.

// biome-ignore lint/suspicious/noRedundantUseStrict: a classic script (strict mode hides these frames' functions and receivers from CallSite)
"use strict";
(function bootstrap(global) {
  // biome-ignore lint/suspicious/noRedundantUseStrict: see above; also strict when evaluated on its own
  "use strict";
  const bridge = global.__airlockBridge;
  delete global.__airlockBridge;
  // the synchronous way out (worker processes): send() hands the request to the host at once and
  // returns a call number (or a refusal code); the host answers later by entering settle()
  const send = global.__airlockSend;
  delete global.__airlockSend;
  for (const name of ["WebAssembly", "SharedArrayBuffer", "Atomics"]) delete global[name];
  const installWeb = global.__airlockWebRuntime;
  delete global.__airlockWebRuntime;
  const runtimeRef = global.__airlockRuntime;
  delete global.__airlockRuntime;
  // calls in flight in this context: seq -> reject of the promise run() awaits (a throw in a
  // timer or microtask callback of that call fails it)
  const running = new Map();
  const web = installWeb(global, runtimeRef, (seq, error) => {
    const fail = apply(mapGet, running, [seq]);
    if (fail !== undefined) fail(error);
  });
  const { utf8Encode } = web;
  const webBegin = web.begin;
  const webEnter = web.enter;
  const webEnd = web.end;
  const webFire = web.fire;
  const failureOf = web.failureOf;
  const toRequest = web.toRequest;
  const fromReply = web.fromReply;

  const { apply } = Reflect;
  const { ownKeys } = Reflect;
  const { freeze, getOwnPropertyDescriptor, getPrototypeOf, hasOwn } = Object;
  const { isArray } = Array;
  const jsonParse = JSON.parse;
  const jsonStringify = JSON.stringify;
  const ObjectProto = Object.prototype;
  const ArrayProto = Array.prototype;
  const DateProto = Date.prototype;
  const dateToISOString = Date.prototype.toISOString;
  const ErrorCtor = Error;
  const ErrorProto = Error.prototype;
  const isProtoOf = Object.prototype.isPrototypeOf;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const abIsView = ArrayBuffer.isView;
  // brand checks of binary data (the getters throw on anything else; a prototype cannot fake them)
  const TypedArrayProto = getPrototypeOf(Uint8Array.prototype);
  const typedLength = getOwnPropertyDescriptor(TypedArrayProto, "length").get;
  const typedName = getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get;
  const viewByteLength = getOwnPropertyDescriptor(DataView.prototype, "byteLength").get;
  const abByteLength = getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  const StringCtor = String;
  const stringSlice = String.prototype.slice;
  const regexTest = RegExp.prototype.test;
  const codePattern = /^[A-Z][A-Z0-9_]{0,63}$/;
  const SetCtor = Set;
  const setHas = Set.prototype.has;
  const setAdd = Set.prototype.add;
  const setDelete = Set.prototype.delete;
  const WeakSetCtor = WeakSet;
  const weakAdd = WeakSet.prototype.add;
  const weakHas = WeakSet.prototype.has;
  const bridgeApply = bridge.apply;
  const sendApplySync = send === undefined ? undefined : send.applySync;
  const PromiseCtor = Promise;
  const promiseReject = Promise.reject;
  const promiseResolve = Promise.resolve;
  const promiseThen = Promise.prototype.then;
  const waits = new Map();
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const SEND_OPTIONS = freeze({
    __proto__: null,
    arguments: freeze({ __proto__: null, copy: true }),
    result: freeze({ __proto__: null, copy: true }),
  });
  const REFUSALS = freeze({
    __proto__: null,
    AIRLOCK_BRIDGE_TOKEN_INVALID: "this call has ended",
    AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY: "malformed bridge request",
  });
  // null-prototype options: isolated-vm reads them with [[Get]], so polluted prototypes must not reach it
  const BRIDGE_OPTIONS = freeze({
    __proto__: null,
    arguments: freeze({ __proto__: null, copy: true }),
    result: freeze({ __proto__: null, promise: true, copy: true }),
  });
  const RangeErrorProto = RangeError.prototype;
  const PLUGIN_GLOBAL = "__airlockPlugin";
  const MAX_DEPTH = 64;
  const MAX_MESSAGE = 2000;

  const failures = new WeakSetCtor();
  function fail(code, message) {
    const f = { code, message };
    apply(weakAdd, failures, [f]);
    return f;
  }
  function ownData(obj, key) {
    if ((typeof obj !== "object" && typeof obj !== "function") || obj === null) return undefined;
    const desc = getOwnPropertyDescriptor(obj, key);
    return desc !== undefined && hasOwn(desc, "value") ? desc.value : undefined;
  }
  function clip(text) {
    return text.length > MAX_MESSAGE ? apply(stringSlice, text, [0, MAX_MESSAGE]) : text;
  }
  function deepFreeze(value) {
    if (typeof value !== "object" || value === null) return value;
    const keys = ownKeys(value);
    for (let i = 0; i < keys.length; i++) deepFreeze(value[keys[i]]);
    return freeze(value);
  }

  // ---- result serialisation: own enumerable data properties of plain objects/arrays only ----
  function serialize(root, maxBytes) {
    let out = "";
    const stack = new SetCtor();
    function emit(piece) {
      if (out.length + piece.length > maxBytes) {
        throw fail(
          "AIRLOCK_SANDBOX_RESULT_TOO_LARGE",
          `the result is too large (maxResultBytes = ${maxBytes} bytes)`,
        );
      }
      out += piece;
    }
    function entry(obj, key) {
      const desc = getOwnPropertyDescriptor(obj, key);
      if (desc === undefined) return { skip: true };
      if (!hasOwn(desc, "value")) throw fail("AIRLOCK_SANDBOX_RESULT_INVALID", "the result has a getter");
      return { skip: desc.enumerable !== true, value: desc.value };
    }
    function walk(v, depth) {
      switch (typeof v) {
        case "string":
          if (v.length > maxBytes)
            throw fail(
              "AIRLOCK_SANDBOX_RESULT_TOO_LARGE",
              `the result is too large (maxResultBytes = ${maxBytes} bytes)`,
            );
          return emit(jsonStringify(v));
        case "number":
        case "boolean":
          return emit(jsonStringify(v));
        case "undefined":
          return emit("null");
        case "object":
          break;
        default:
          throw fail("AIRLOCK_SANDBOX_RESULT_INVALID", `the result holds a ${typeof v}, which is not data`);
      }
      if (v === null) return emit("null");
      if (depth > MAX_DEPTH) throw fail("AIRLOCK_SANDBOX_RESULT_INVALID", "the result is nested too deeply");
      if (apply(setHas, stack, [v])) throw fail("AIRLOCK_SANDBOX_RESULT_INVALID", "the result is cyclic");
      const proto = getPrototypeOf(v);
      if (proto === DateProto) return emit(jsonStringify(apply(dateToISOString, v, [])));
      apply(setAdd, stack, [v]);
      if (isArray(v)) {
        if (proto !== ArrayProto)
          throw fail("AIRLOCK_SANDBOX_RESULT_INVALID", "the result holds an Array subclass");
        const length = ownData(v, "length");
        emit("[");
        for (let i = 0; i < length; i++) {
          if (i > 0) emit(",");
          const e = entry(v, `${i}`);
          walk(e.skip ? null : e.value, depth + 1);
        }
        emit("]");
      } else {
        if (proto !== ObjectProto && proto !== null) {
          const binary = binaryOf(v);
          if (binary === undefined)
            throw fail(
              "AIRLOCK_SANDBOX_RESULT_INVALID",
              "the result holds an object that is not a plain object",
            );
          // as JSON it would take at least a digit and a comma per element: past the limit, say so
          if (out.length + 2 * binary.elements + 1 > maxBytes)
            throw fail(
              "AIRLOCK_SANDBOX_RESULT_TOO_LARGE",
              `the result is too large (maxResultBytes = ${maxBytes} bytes): it holds a ${binary.kind} of ${binary.elements} elements`,
            );
          throw fail(
            "AIRLOCK_SANDBOX_RESULT_INVALID",
            `the result holds a ${binary.kind}, which is binary data, not JSON: return Array.from(it) for its numbers, or its bytes as base64 text`,
          );
        }
        emit("{");
        let first = true;
        const keys = ownKeys(v);
        for (let k = 0; k < keys.length; k++) {
          const key = keys[k];
          if (typeof key !== "string") continue;
          if (key === "__proto__")
            throw fail("AIRLOCK_SANDBOX_RESULT_INVALID", "the result has a __proto__ key");
          const e = entry(v, key);
          if (e.skip || e.value === undefined) continue;
          if (!first) emit(",");
          first = false;
          emit(`${jsonStringify(key)}:`);
          walk(e.value, depth + 1);
        }
        emit("}");
      }
      apply(setDelete, stack, [v]);
    }
    walk(root, 0);
    return out;
  }

  /** {kind, elements} of a typed array, DataView or ArrayBuffer (elements: bytes for the last two). */
  function binaryOf(v) {
    if (abIsView(v)) {
      const kind = apply(typedName, v, []);
      if (kind !== undefined) return { kind, elements: apply(typedLength, v, []) };
      return { kind: "DataView", elements: apply(viewByteLength, v, []) };
    }
    try {
      return { kind: "ArrayBuffer", elements: apply(abByteLength, v, []) };
    } catch {
      return undefined; // not an ArrayBuffer: any other class instance
    }
  }

  // ---- what a throw becomes: {code, message, details} built from data properties only ----
  function describeThrown(e) {
    if (typeof e === "object" && e !== null && apply(weakHas, failures, [e]))
      return { code: e.code, message: e.message };
    const own = failureOf(e);
    if (own !== undefined) return { code: own.code, message: own.message };
    let isError = false;
    try {
      isError = typeof e === "object" && e !== null && apply(isProtoOf, ErrorProto, [e]);
    } catch {
      isError = false;
    }
    if (!isError) {
      const what = e === null ? "null" : typeof e;
      const shown = typeof e === "string" ? `: ${jsonStringify(clip(e))}` : "";
      return {
        code: "AIRLOCK_SANDBOX_TOOL_THREW",
        message: `the tool threw a non-Error value (${what})${shown}`,
      };
    }
    let message = "";
    let errorCode;
    try {
      const m = ownData(e, "message");
      if (typeof m === "string") message = clip(m);
      const c = ownData(e, "code");
      if (typeof c === "string" && apply(regexTest, codePattern, [c])) errorCode = c;
    } catch {
      message = "(the thrown Error's properties could not be read)";
    }
    if (message === "Array buffer allocation failed" && apply(isProtoOf, RangeErrorProto, [e])) {
      // isolated-vm counts ArrayBuffer memory against memoryLimit by refusing the allocation
      return {
        code: "AIRLOCK_SANDBOX_MEMORY_LIMIT",
        message: "the plugin went over its memory limit (ArrayBuffer)",
      };
    }
    return {
      code: "AIRLOCK_SANDBOX_TOOL_THREW",
      message: message === "" ? "the tool threw an Error" : message,
      errorCode,
    };
  }

  // ---- ctx: every method crosses the one bridge function with copied plain data ----
  function makeCtx(seq, data, meter) {
    // past the cap, refused without crossing (see the header)
    function overCap() {
      if (meter.crossed <= meter.cap) {
        meter.crossed++;
        return undefined;
      }
      meter.refused++;
      // one frozen error for all of them: a flood must not cost a stack trace (and its memory)
      // each; rejected a microtask later, once the caller's handler is attached (a promise
      // rejected with no handler yet costs isolated-vm's rejection tracking far more)
      if (meter.error === undefined) {
        const err = new ErrorCtor(
          `this tool call used up its capability calls (capabilityCalls = ${meter.cap})`,
        );
        err.code = "AIRLOCK_BRIDGE_CALL_LIMIT";
        meter.error = freeze(err);
        meter.reject = () => {
          throw meter.error;
        };
      }
      return apply(promiseThen, apply(promiseResolve, PromiseCtor, [undefined]), [meter.reject]);
    }
    // not async: the promise it returns is the one the plugin (or ctx's own await) holds, so a
    // handler is attached before it settles (a rejection with no handler yet is costly to track)
    function call(capability, method, args) {
      const refused = overCap();
      if (refused !== undefined) return refused;
      return send === undefined ? callAsync(capability, method, args) : callSync(capability, method, args);
    }
    function callSync(capability, method, args) {
      let bid;
      try {
        bid = apply(sendApplySync, send, [undefined, [seq, capability, method, args], SEND_OPTIONS]);
      } catch {
        const err = new ErrorCtor(`arguments to ctx.${capability}.${method} must be plain data`);
        err.code = "AIRLOCK_SANDBOX_ARGS_NOT_COPYABLE";
        return apply(promiseReject, PromiseCtor, [err]);
      }
      if (isArray(bid)) {
        // refused by the worker's meter for calls waiting (not sent): it does not count as crossed
        if (bid[0] === false && bid[1] === "AIRLOCK_BRIDGE_BUSY") meter.crossed--;
        return answered(bid);
      }
      if (typeof bid !== "number") {
        const err = new ErrorCtor(REFUSALS[bid] ?? "the call was refused");
        err.code = StringCtor(bid);
        return apply(promiseReject, PromiseCtor, [err]);
      }
      return new PromiseCtor((resolve, reject) => {
        apply(mapSet, waits, [bid, { resolve, reject, seq }]);
      });
    }
    // the host's answer came back from send() itself: settled as settle() would, the code after
    // the await running as seq's
    function answered(reply) {
      const ok = reply[0] === true;
      const value = reply[1];
      const message = reply[2];
      return apply(promiseThen, apply(promiseResolve, PromiseCtor, [undefined]), [
        () => {
          webEnter(seq);
          if (ok) return value;
          const err = new ErrorCtor(StringCtor(message));
          err.code = StringCtor(value);
          throw err;
        },
      ]);
    }
    async function callAsync(capability, method, args) {
      let reply;
      try {
        reply = await apply(bridgeApply, bridge, [
          undefined,
          [seq, capability, method, args],
          BRIDGE_OPTIONS,
        ]);
      } catch {
        webEnter(seq);
        const err = new ErrorCtor(`arguments to ctx.${capability}.${method} must be plain data`);
        err.code = "AIRLOCK_SANDBOX_ARGS_NOT_COPYABLE";
        throw err;
      }
      webEnter(seq); // what runs next is this call's code (its timers belong to it)
      if (ownData(reply, "ok") === true) return ownData(reply, "value");
      const err = new ErrorCtor(StringCtor(ownData(reply, "message")));
      err.code = StringCtor(ownData(reply, "code"));
      throw err;
    }
    function toBytes(buffer) {
      if (typeof buffer === "string") return utf8Encode(buffer);
      if (buffer instanceof ArrayBufferCtor) return new Uint8ArrayCtor(buffer);
      if (abIsView(buffer)) return new Uint8ArrayCtor(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      const err = new ErrorCtor("artifact buffer must be a Uint8Array, an ArrayBuffer or a string");
      err.code = "AIRLOCK_SANDBOX_ARGS_NOT_COPYABLE";
      throw err;
    }
    function response(r) {
      const body = ownData(r, "body");
      return fromReply({
        status: ownData(r, "status"),
        statusText: StringCtor(ownData(r, "statusText") ?? ""),
        headers: ownData(r, "headers") ?? {},
        url: StringCtor(ownData(r, "url") ?? ""),
        redirected: ownData(r, "redirected") === true,
        body: abIsView(body) ? body : null,
      });
    }
    // ctx.fetch(input: string | URL | Request, init?): a Response; an AbortSignal (init.signal or
    // the Request's) rejects the promise with its reason (the host request still runs out)
    async function fetch(input, init) {
      const { url, init: plain, signal } = toRequest(input, init);
      if (signal?.aborted) throw signal.reason;
      const reply = call("fetch", "request", [url, plain]);
      if (signal === null) return response(await reply);
      return new PromiseCtor((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        apply(promiseThen, reply, [
          (r) => {
            signal.removeEventListener("abort", onAbort);
            resolve(response(r));
          },
          (e) => {
            signal.removeEventListener("abort", onAbort);
            reject(e);
          },
        ]);
      });
    }
    const knowledge =
      data.knowledgeLevel === null
        ? {}
        : {
            knowledge: freeze({
              level: data.knowledgeLevel,
              search: (query, options) =>
                call("knowledge", "search", options === undefined ? [query] : [query, options]),
              get: (id) => call("knowledge", "get", [id]),
              list: (options) => call("knowledge", "list", options === undefined ? [] : [options]),
              write: (doc) => call("knowledge", "write", [doc]),
              append: (id, content) => call("knowledge", "append", [id, content]),
              delete: (id) => call("knowledge", "delete", [id]),
              reingest: (id) => call("knowledge", "reingest", [id]),
            }),
          };
    const ctx = {
      ...knowledge,
      instanceId: data.instanceId,
      conversationId: data.conversationId,
      toolId: data.toolId,
      conversation: deepFreeze(data.conversation),
      attachments: deepFreeze(data.attachments),
      secrets: freeze({
        get: (key) => call("secrets", "get", [key]),
        ref: (key) => freeze({ $secretRef: StringCtor(key) }),
      }),
      state: freeze({
        get: (key) => call("state", "get", [key]),
        set: async (key, value) => {
          await call("state", "set", [key, value]);
        },
        delete: async (key) => {
          await call("state", "delete", [key]);
        },
        keys: () => call("state", "keys", []),
      }),
      audit: freeze({
        log: async (entry) => {
          await call("audit", "log", [entry]);
        },
      }),
      artifacts: freeze({
        put: (artifact, ttlMs) => {
          const a = { buffer: toBytes(artifact?.buffer), filename: artifact?.filename, mime: artifact?.mime };
          return call("artifacts", "put", ttlMs === undefined ? [a] : [a, ttlMs]);
        },
        take: (handle) => call("artifacts", "take", [handle]),
      }),
      fetch,
      oauth: freeze({
        requireToken: (provider) => call("oauth", "requireToken", [provider]),
        token: (provider) => call("oauth", "token", [provider]),
      }),
      models: freeze({
        complete: (request) => call("models", "complete", [request]),
      }),
      progress: async (progress, total, message) => {
        await call("progress", "report", [progress, total, message]);
      },
      log: async (level, message) => {
        await call("log", "write", [level, message]);
      },
      // code mode's runtime only (host/src/engine/code-mode/): its one way out, each call a pipeline call
      ...(data.codeMode === true
        ? { tools: freeze({ call: (id, input) => call("tools", "call", [id, input]) }) }
        : {}),
      elicit: (request) => call("elicit", "ask", [request]),
    };
    return freeze(ctx);
  }

  function toolNames() {
    const tools = ownData(ownData(global, PLUGIN_GLOBAL), "tools");
    if (typeof tools !== "object" || tools === null) return "";
    let names = "";
    const keys = ownKeys(tools);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === "string" && typeof ownData(tools, key) === "function")
        names += (names ? "," : "") + key;
    }
    return names;
  }

  // "E" + three JSON strings on their own lines: never JSON.stringify of an object, whose
  // toJSON lookup a polluted Object.prototype could answer
  function failure(d) {
    const errorCode = hasOwn(d, "errorCode") ? d.errorCode : undefined;
    return `E${jsonStringify(d.code)}\n${jsonStringify(d.message)}\n${jsonStringify(errorCode ?? "")}`;
  }

  // the envelope, with the count of calls the ctx refused itself in front when there were any
  function metered(meter, envelope) {
    return meter.refused > 0 ? `M${meter.refused}\n${envelope}` : envelope;
  }

  async function run(seq, tool, inputJson, ctxJson, maxResultBytes, callCap) {
    if (seq === 0) return `T${toolNames()}`;
    const meter = {
      cap: typeof callCap === "number" ? callCap : 1 / 0,
      crossed: 0,
      refused: 0,
      error: undefined,
      reject: undefined,
    };
    let value;
    try {
      const fn = ownData(ownData(ownData(global, PLUGIN_GLOBAL), "tools"), tool);
      if (typeof fn !== "function") {
        return failure({
          code: "AIRLOCK_SANDBOX_TOOL_NOT_FOUND",
          message: `the bundle exports no tool ${tool}`,
        });
      }
      const ctx = makeCtx(seq, jsonParse(ctxJson), meter);
      webBegin(seq);
      // the tool runs outside any Promise executor (no builtin frame between it and run)
      let resolveRun;
      let rejectRun;
      const outcome = new PromiseCtor((resolve, reject) => {
        resolveRun = resolve;
        rejectRun = reject;
      });
      apply(mapSet, running, [seq, rejectRun]);
      const returned = apply(fn, undefined, [jsonParse(inputJson), ctx]);
      apply(promiseThen, apply(promiseResolve, PromiseCtor, [returned]), [resolveRun, rejectRun]);
      value = await outcome;
    } catch (e) {
      return metered(meter, failure(describeThrown(e)));
    } finally {
      apply(mapDelete, running, [seq]);
      webEnd(seq);
    }
    try {
      return metered(meter, `R${serialize(value, maxResultBytes)}`);
    } catch (e) {
      const d = describeThrown(e);
      if (d.code !== "AIRLOCK_SANDBOX_TOOL_THREW") return metered(meter, failure(d));
      return metered(
        meter,
        failure({
          code: "AIRLOCK_SANDBOX_RESULT_INVALID",
          message: `reading the result threw: ${d.message}`,
        }),
      );
    }
  }
  // the host's answer to a send(): settles that ctx call's promise (unknown numbers are ignored)
  function settle(bid, ok, valueOrCode, message) {
    const wait = apply(mapGet, waits, [bid]);
    if (wait === undefined) return;
    apply(mapDelete, waits, [bid]);
    webEnter(wait.seq);
    if (ok === true) {
      wait.resolve(valueOrCode);
      return;
    }
    const err = new ErrorCtor(StringCtor(message));
    err.code = StringCtor(valueOrCode);
    wait.reject(err);
  }
  // the host's timer for seq fired: run its due timers (bounded like settle)
  function fire(seq) {
    webFire(seq);
  }
  return freeze([run, settle, fire]);
})(globalThis);
