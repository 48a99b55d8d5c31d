// The code-mode runtime: the "bundle" of the code-mode isolate. The sandbox runs it in every new
// context after its bootstrap (host/src/isolation/sandbox/isolate/bootstrap.js), like a plugin bundle, and
// calls its one tool, `run`, once per run_code call, in a context made for that call alone.
// Contract:
// - run({source, namespaces, maxLogBytes, scratch}, ctx): source is the model's code, types
//   stripped, already wrapped by the host as `(async () => {\n<code>\n})`. It is evaluated at
//   global scope (indirect eval), so it sees the realm's built-ins and the globals this file
//   defines: `tools` (`await tools.<ns>.<tool>(input)` → ctx.tools.call, the one way out),
//   `console` (captured, capped at maxLogBytes) and, only when `scratch` is true (the operator
//   turned the scratch store on), `scratch` (get/set/delete/keys → ctx.state, which the host
//   answers from the conversation's scratch store, code-mode/scratch.ts). It never sees ctx,
//   this file's locals or the input.
// - It answers plain data: {ok: true, json, log, logTruncated} with the returned value as JSON
//   text, or {ok: false, code, message, name, line, column, innerCall?, log, logTruncated}.
// - Every intrinsic it uses is captured before the model's code runs; the code can only break
//   its own report, never the host: the result is serialised and checked again on the host.
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic script, strict like the bootstrap
"use strict";
(function codeModeRuntime(global) {
  // biome-ignore lint/suspicious/noRedundantUseStrict: see above; also strict when evaluated on its own
  "use strict";
  const { apply } = Reflect;
  const { freeze, defineProperty, getOwnPropertyDescriptor, hasOwn, create } = Object;
  const ProxyCtor = Proxy;
  const ErrorCtor = Error;
  const WeakMapCtor = WeakMap;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const jsonStringify = JSON.stringify;
  const StringCtor = String;
  const charCodeAt = String.prototype.charCodeAt;
  const stringSlice = String.prototype.slice;
  const regexExec = RegExp.prototype.exec;
  const indirectEval = global.eval;
  const LINE = /run_code\.ts:(\d+):(\d+)/;
  const MAX_MESSAGE = 2000;

  function ownData(obj, key) {
    if ((typeof obj !== "object" && typeof obj !== "function") || obj === null) return undefined;
    try {
      const desc = getOwnPropertyDescriptor(obj, key);
      return desc !== undefined && hasOwn(desc, "value") ? desc.value : undefined;
    } catch {
      return undefined; // a proxy whose trap throws: nothing to read
    }
  }

  function utf8Length(text) {
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      const c = apply(charCodeAt, text, [i]);
      n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 2 : 3;
    }
    return n;
  }

  function printable(value) {
    if (typeof value === "string") return value;
    if (typeof value === "undefined") return "undefined";
    try {
      if (typeof value === "object" && value !== null) {
        const message = ownData(value, "message");
        if (typeof message === "string" && ownData(value, "stack") !== undefined) return message;
      }
      const json = jsonStringify(value);
      return json === undefined ? StringCtor(value) : json;
    } catch {
      try {
        return StringCtor(value);
      } catch {
        return "[unprintable]";
      }
    }
  }

  /** Where in the model's code an error was thrown: the first run_code.ts frame, wrapper line off. */
  function locate(error) {
    let stack;
    try {
      stack = typeof error === "object" && error !== null ? error.stack : undefined;
    } catch {
      stack = undefined;
    }
    if (typeof stack !== "string") return {};
    const m = apply(regexExec, LINE, [stack]);
    if (m === null) return {};
    const line = Number(m[1]) - 1;
    return line >= 1 ? { line, column: Number(m[2]) } : {};
  }

  async function run(input, ctx) {
    const call = ctx.tools.call;
    const state = ctx.state;
    // this context serves one call: nothing else of the bundle needs to stay reachable
    delete global.__airlockPlugin;
    const maxLog = ownData(input, "maxLogBytes");
    const namespaces = ownData(input, "namespaces") ?? {};
    let log = "";
    let logBytes = 0;
    let logTruncated = false;
    const inner = new WeakMapCtor();

    function write(prefix, args) {
      if (logTruncated) return;
      let line = prefix;
      for (let i = 0; i < args.length; i++) line += (i > 0 ? " " : "") + printable(args[i]);
      line += "\n";
      const bytes = utf8Length(line);
      if (logBytes + bytes > maxLog) {
        // keep what fits (by UTF-16 units, a safe under-estimate of bytes), then stop logging
        const room = maxLog - logBytes;
        if (room > 0) log += apply(stringSlice, line, [0, Math.floor(room / 3)]);
        logTruncated = true;
        return;
      }
      log += line;
      logBytes += bytes;
    }
    const consoleObject = freeze({
      log: (...a) => write("", a),
      info: (...a) => write("", a),
      debug: (...a) => write("", a),
      warn: (...a) => write("[warn] ", a),
      error: (...a) => write("[error] ", a),
    });

    async function invoke(id, toolInput) {
      let reply;
      try {
        reply = await apply(call, undefined, [id, toolInput === undefined ? {} : toolInput]);
      } catch (e) {
        // refused before it reached the host (arguments that are not plain data)
        const code = StringCtor(ownData(e, "code") ?? "AIRLOCK_SANDBOX_ARGS_NOT_COPYABLE");
        const err = new ErrorCtor(`${id}: ${StringCtor(ownData(e, "message") ?? "the call was refused")}`);
        err.code = code;
        apply(weakSet, inner, [err, { tool: id, callId: null, code }]);
        throw err;
      }
      if (ownData(reply, "ok") === true) return ownData(reply, "value");
      const code = StringCtor(ownData(reply, "code"));
      const callId = ownData(reply, "callId") ?? null;
      const err = new ErrorCtor(StringCtor(ownData(reply, "message")));
      err.code = code;
      err.tool = id;
      err.callId = callId;
      apply(weakSet, inner, [err, { tool: id, callId, code }]);
      throw err;
    }

    const functions = new MapCtor();
    function toolFunction(id) {
      let fn = apply(mapGet, functions, [id]);
      if (fn === undefined) {
        fn = (toolInput) => invoke(id, toolInput);
        apply(mapSet, functions, [id, fn]);
      }
      return fn;
    }
    function frozenKeys(names) {
      const target = create(null);
      for (let i = 0; i < names.length; i++) target[names[i]] = true;
      return target;
    }
    const readOnly = {
      set: () => false,
      defineProperty: () => false,
      deleteProperty: () => false,
      setPrototypeOf: () => false,
    };
    const spaces = new MapCtor();
    function namespace(ns) {
      let proxy = apply(mapGet, spaces, [ns]);
      if (proxy === undefined) {
        const names = ownData(namespaces, ns);
        proxy = new ProxyCtor(frozenKeys(names ?? []), {
          ...readOnly,
          // any name reaches the host, which answers a tool this run does not serve with its code
          get: (_t, key) =>
            typeof key === "string" && key !== "then" ? toolFunction(`${ns}:${key}`) : undefined,
        });
        apply(mapSet, spaces, [ns, proxy]);
      }
      return proxy;
    }
    const nsNames = [];
    for (const key in namespaces) if (hasOwn(namespaces, key)) nsNames[nsNames.length] = key;
    const tools = new ProxyCtor(frozenKeys(nsNames), {
      ...readOnly,
      get: (_t, key) => (typeof key === "string" && key !== "then" ? namespace(key) : undefined),
    });
    if (ownData(input, "scratch") === true) {
      const scratchCall = (method, args) => {
        const fn = state[method];
        return (async () => {
          try {
            return await apply(fn, undefined, args);
          } catch (e) {
            const code = StringCtor(ownData(e, "code") ?? "AIRLOCK_CODE_FAILED");
            const err = new ErrorCtor(`scratch.${method}: ${StringCtor(ownData(e, "message") ?? "refused")}`);
            err.code = code;
            apply(weakSet, inner, [err, { tool: `scratch.${method}`, callId: null, code }]);
            throw err;
          }
        })();
      };
      const scratchObject = freeze({
        get: (key) => scratchCall("get", [key]),
        set: (key, value) => scratchCall("set", [key, value]),
        delete: (key) => scratchCall("delete", [key]),
        keys: () => scratchCall("keys", []),
      });
      defineProperty(global, "scratch", {
        value: scratchObject,
        writable: false,
        enumerable: true,
        configurable: false,
      });
    }
    defineProperty(global, "tools", { value: tools, writable: false, enumerable: true, configurable: false });
    defineProperty(global, "console", {
      value: consoleObject,
      writable: true,
      enumerable: false,
      configurable: true,
    });

    function failure(code, error) {
      let message = "";
      let name = "Error";
      if (typeof error === "object" && error !== null) {
        const m = ownData(error, "message");
        message = typeof m === "string" ? m : printable(error);
        try {
          const n = error.name;
          if (typeof n === "string") name = n;
        } catch {
          name = "Error";
        }
      } else {
        message = `the code threw a non-Error value: ${printable(error)}`;
        name = typeof error;
      }
      if (message.length > MAX_MESSAGE) message = apply(stringSlice, message, [0, MAX_MESSAGE]);
      // isolated-vm charges ArrayBuffers to the memory limit by refusing the allocation
      if (message === "Array buffer allocation failed" && name === "RangeError")
        code = "AIRLOCK_CODE_MEMORY_LIMIT";
      let innerCall =
        typeof error === "object" && error !== null ? apply(weakGet, inner, [error]) : undefined;
      if (innerCall === undefined) {
        const cause = ownData(error, "cause");
        if (typeof cause === "object" && cause !== null) innerCall = apply(weakGet, inner, [cause]);
      }
      const out = { ok: false, code, message, name, ...locate(error), log, logTruncated };
      if (innerCall !== undefined) out.innerCall = { ...innerCall };
      return out;
    }

    let fn;
    try {
      fn = indirectEval(ownData(input, "source"));
    } catch (e) {
      return failure("AIRLOCK_CODE_SYNTAX", e);
    }
    let value;
    try {
      value = await fn();
    } catch (e) {
      return failure("AIRLOCK_CODE_THREW", e);
    }
    let json;
    try {
      json = jsonStringify(value === undefined ? null : value);
    } catch (e) {
      return failure("AIRLOCK_CODE_RESULT_INVALID", e);
    }
    return { ok: true, json: json === undefined ? "null" : json, log, logTruncated };
  }

  defineProperty(global, "__airlockPlugin", {
    value: freeze({ tools: freeze({ run }) }),
    writable: false,
    enumerable: false,
    configurable: true,
  });
})(globalThis);
