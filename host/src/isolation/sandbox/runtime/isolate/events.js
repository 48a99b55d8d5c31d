// DOMException, Event, EventTarget, AbortController and AbortSignal (DOM standard), compact:
// listeners with `once`, `signal` and handleEvent objects; `abort`, `reason`,
// `throwIfAborted()`, `onabort`, and the static AbortSignal.abort/timeout/any.
// AbortSignal.timeout schedules through the runtime's timers, so it is bounded like them: it
// fires only while the call that created it runs, and is cancelled when that call ends.
const NAMES = {
  IndexSizeError: 1,
  HierarchyRequestError: 3,
  WrongDocumentError: 4,
  InvalidCharacterError: 5,
  NoModificationAllowedError: 7,
  NotFoundError: 8,
  NotSupportedError: 9,
  InvalidStateError: 11,
  SyntaxError: 12,
  InvalidModificationError: 13,
  NamespaceError: 14,
  InvalidAccessError: 15,
  TypeMismatchError: 17,
  SecurityError: 18,
  NetworkError: 19,
  AbortError: 20,
  URLMismatchError: 21,
  QuotaExceededError: 22,
  TimeoutError: 23,
  InvalidNodeTypeError: 24,
  DataCloneError: 25,
};

export class DOMException extends Error {
  #name;
  #message;
  constructor(message = "", name = "Error") {
    super(String(message));
    this.#message = String(message);
    this.#name = String(name);
  }
  get name() {
    return this.#name;
  }
  get message() {
    return this.#message;
  }
  get code() {
    return Object.hasOwn(NAMES, this.#name) ? NAMES[this.#name] : 0;
  }
}

export class Event {
  #type;
  #target = null;
  #defaultPrevented = false;
  #cancelable;
  #bubbles;
  #stop = false;
  #timeStamp = Date.now();
  constructor(...args) {
    if (args.length === 0) throw new TypeError("Event needs a type");
    const [type, init] = args;
    this.#type = String(type);
    this.#cancelable = init?.cancelable === true;
    this.#bubbles = init?.bubbles === true;
  }
  get type() {
    return this.#type;
  }
  get target() {
    return this.#target;
  }
  get currentTarget() {
    return this.#target;
  }
  get srcElement() {
    return this.#target;
  }
  get cancelable() {
    return this.#cancelable;
  }
  get bubbles() {
    return this.#bubbles;
  }
  get defaultPrevented() {
    return this.#defaultPrevented;
  }
  get timeStamp() {
    return this.#timeStamp;
  }
  get eventPhase() {
    return this.#target === null ? 0 : 2;
  }
  preventDefault() {
    if (this.#cancelable) this.#defaultPrevented = true;
  }
  stopPropagation() {
    // one target, no propagation path: nothing to stop
  }
  stopImmediatePropagation() {
    this.#stop = true;
  }
  composedPath() {
    return this.#target === null ? [] : [this.#target];
  }
  static dispatchTo(event, target) {
    event.#target = target;
    event.#stop = false;
    return () => event.#stop;
  }
}
const dispatchTo = Event.dispatchTo;
delete Event.dispatchTo;

export class EventTarget {
  #listeners = new Map();
  addEventListener(type, listener, options = undefined) {
    if (listener === null || listener === undefined) return;
    const capture = typeof options === "boolean" ? options : options?.capture === true;
    const once = typeof options === "object" && options?.once === true;
    const signal = typeof options === "object" ? options?.signal : undefined;
    if (signal?.aborted) return;
    const key = String(type);
    let list = this.#listeners.get(key);
    if (list === undefined) {
      list = [];
      this.#listeners.set(key, list);
    }
    for (const l of list) if (l.listener === listener && l.capture === capture) return;
    const entry = { listener, capture, once, removed: false };
    list.push(entry);
    signal?.addEventListener("abort", () => this.removeEventListener(key, listener, { capture }));
  }
  removeEventListener(type, listener, options = undefined) {
    const capture = typeof options === "boolean" ? options : options?.capture === true;
    const list = this.#listeners.get(String(type));
    if (list === undefined) return;
    const i = list.findIndex((l) => l.listener === listener && l.capture === capture);
    if (i >= 0) {
      list[i].removed = true;
      list.splice(i, 1);
    }
  }
  dispatchEvent(event) {
    if (!(event instanceof Event)) throw new TypeError("dispatchEvent needs an Event");
    const stopped = dispatchTo(event, this);
    const list = this.#listeners.get(event.type);
    if (list !== undefined) {
      for (const entry of [...list]) {
        if (entry.removed) continue;
        if (entry.once) this.removeEventListener(event.type, entry.listener, { capture: entry.capture });
        const { listener } = entry;
        if (typeof listener === "function") listener.call(this, event);
        else if (typeof listener?.handleEvent === "function") listener.handleEvent(event);
        if (stopped()) break;
      }
    }
    return !event.defaultPrevented;
  }
}

/** AbortSignal and AbortController over the runtime's setTimeout/clearTimeout. */
export function createAbort(timers) {
  const secrets = new WeakMap();
  let constructing = false;

  function signalAbort(signal, reason) {
    const state = secrets.get(signal);
    if (state.aborted) return;
    state.aborted = true;
    state.reason =
      reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    for (const fn of state.algorithms.splice(0)) fn();
    const event = new Event("abort");
    if (typeof state.onabort === "function") state.onabort.call(signal, event);
    signal.dispatchEvent(event);
  }

  class AbortSignal extends EventTarget {
    constructor() {
      if (!constructing) throw new TypeError("Illegal constructor: use new AbortController().signal");
      super();
      constructing = false;
      secrets.set(this, { aborted: false, reason: undefined, algorithms: [], onabort: null });
    }
    get aborted() {
      return secrets.get(this).aborted;
    }
    get reason() {
      return secrets.get(this).reason;
    }
    get onabort() {
      return secrets.get(this).onabort;
    }
    set onabort(fn) {
      secrets.get(this).onabort = typeof fn === "function" ? fn : null;
    }
    throwIfAborted() {
      const state = secrets.get(this);
      if (state.aborted) throw state.reason;
    }
    static abort(reason = undefined) {
      const signal = make();
      signalAbort(signal, reason);
      return signal;
    }
    static timeout(ms) {
      const delay = Number(ms);
      if (!(delay >= 0)) throw new TypeError("AbortSignal.timeout needs a non-negative number of ms");
      const signal = make();
      timers.setTimeout(
        () => signalAbort(signal, new DOMException("The operation timed out", "TimeoutError")),
        delay,
      );
      return signal;
    }
    static any(signals) {
      const signal = make();
      const list = [...signals];
      for (const s of list) {
        if (!secrets.has(s)) throw new TypeError("AbortSignal.any needs AbortSignals");
        if (s.aborted) {
          signalAbort(signal, s.reason);
          return signal;
        }
      }
      for (const s of list) secrets.get(s).algorithms.push(() => signalAbort(signal, s.reason));
      return signal;
    }
  }
  function make() {
    constructing = true;
    return new AbortSignal();
  }

  class AbortController {
    #signal = make();
    get signal() {
      return this.#signal;
    }
    abort(reason = undefined) {
      signalAbort(this.#signal, reason);
    }
  }
  return { AbortSignal, AbortController, isSignal: (v) => secrets.has(v) };
}
