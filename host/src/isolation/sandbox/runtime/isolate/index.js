// The Web-standard runtime of a plugin context (the WinterTC minimum common API, as far as it
// goes without ambient authority). Bundled with its npm dependencies into one classic script
// (../web-runtime.bundle.js, built by ../build.ts) that defines globalThis.__airlockWebRuntime
// = install; the bootstrap takes and deletes it, then calls install(global, hostRef, onUncaught).
// Contract:
// - Every global is defined like Web IDL does (writable, configurable, not enumerable); the
//   large ones (URL, URLSearchParams, structuredClone, crypto's digests) are built on first
//   read, per context, so a context that does not use them does not pay for them.
// - The only way out is `hostRef` (a Reference the bootstrap took from the global and deleted):
//   called with ("wake", seq, ms) — arm the host timer that will enter fire(seq), data only —,
//   ("random", n) — n fresh random bytes — and ("module", "url") — URL's source text, a constant
//   of ours. Plugin code never sees it, nor any other Reference.
// - install returns what the bootstrap needs, captured before plugin code runs: UTF-8 helpers,
//   the timers' call hooks, fetch conversions, and failureOf(e) for errors the runtime threw
//   with a stable AIRLOCK_* code (the timer cap).
import { createBase64 } from "./base64.js";
import { createAbort, DOMException, Event, EventTarget } from "./events.js";
import { createFetchShapes } from "./fetch.js";
import { apply, defineGlobal, failureOf, freeze } from "./intrinsics.js";
import { TextDecoder, TextEncoder, utf8Decode, utf8Encode } from "./text.js";
import { createTimers } from "./timers.js";

const HOST_OPTIONS = freeze({
  __proto__: null,
  arguments: freeze({ __proto__: null, copy: true }),
  result: freeze({ __proto__: null, copy: true }),
});
// the module's source comes back as the host's shared copy, not as a fresh one
const MODULE_OPTIONS = freeze({ __proto__: null, arguments: freeze({ __proto__: null, copy: true }) });

function install(global, hostRef, onUncaught) {
  const hostCall = hostRef.applySync;
  const callHost = (args) => apply(hostCall, hostRef, [undefined, args, HOST_OPTIONS]);
  const timers = createTimers((seq, ms) => callHost(["wake", seq, ms]), onUncaught);
  const abort = createAbort(timers.api);
  const { atob, btoa } = createBase64(DOMException);
  const random = (n) => callHost(["random", n]);
  // URL's code (whatwg-url, ../web-url.bundle.js) is not in this script: it is 90 % of the
  // runtime's source, and an isolate holds its script sources for good. The host hands it over
  // as a string (one copy per process, shared by every isolate) on a context's first use, and
  // it is evaluated here, in this context, with the eval captured now.
  const indirectEval = global.eval;
  let url;
  const urlModule = () => {
    if (url === undefined) {
      const source = apply(hostCall, hostRef, [undefined, ["module", "url"], MODULE_OPTIONS]);
      url = indirectEval(source)();
    }
    return url;
  };
  // the runtime's own URL classes (a plugin may replace the globals in its context)
  const lazyURL = () => urlModule().URL;
  // undefined until URL was loaded: then no URLSearchParams can exist, and a body check must not load it
  const lazyURLSearchParams = () => url?.URLSearchParams;
  const fetchShapes = createFetchShapes({ lazyURL, lazyURLSearchParams, isSignal: abort.isSignal });
  let crypto;
  const cryptoModule = () => {
    if (crypto === undefined) crypto = require("./crypto.js").createCrypto(random, DOMException);
    return crypto;
  };

  const eager = {
    TextEncoder,
    TextDecoder,
    atob,
    btoa,
    ...timers.api,
    DOMException,
    Event,
    EventTarget,
    AbortController: abort.AbortController,
    AbortSignal: abort.AbortSignal,
    Headers: fetchShapes.Headers,
    Request: fetchShapes.Request,
    Response: fetchShapes.Response,
  };
  for (const name of Object.keys(eager)) defineGlobal(global, name, eager[name]);
  defineGlobal(global, "URL", () => urlModule().URL, true);
  defineGlobal(global, "URLSearchParams", () => urlModule().URLSearchParams, true);
  defineGlobal(global, "structuredClone", () => require("./clone.js").structuredClone, true);
  defineGlobal(global, "crypto", () => cryptoModule().crypto, true);
  defineGlobal(global, "Crypto", () => cryptoModule().Crypto, true);
  defineGlobal(global, "SubtleCrypto", () => cryptoModule().SubtleCrypto, true);
  defineGlobal(global, "self", global);

  return freeze({
    utf8Encode,
    utf8Decode,
    begin: timers.begin,
    enter: timers.enter,
    end: timers.end,
    fire(seq) {
      try {
        timers.fire(seq);
      } catch (error) {
        onUncaught(seq, error);
      }
    },
    failureOf,
    toRequest: fetchShapes.toRequest,
    fromReply: fetchShapes.fromReply,
  });
}

globalThis.__airlockWebRuntime = install;
