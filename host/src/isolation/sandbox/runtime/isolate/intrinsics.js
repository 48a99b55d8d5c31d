// Intrinsics captured when the runtime is installed, before any plugin code runs. Runtime code
// that the host or the bootstrap depends on (timers, randomness, UTF-8 for ctx calls) calls
// these, never a method looked up on a prototype the plugin may have patched since.
export const { apply } = Reflect;
export const { defineProperty, freeze, getOwnPropertyDescriptor, create } = Object;

/** `fn` as a function taking its receiver first: uncurry(Map.prototype.get)(map, key). */
export function uncurry(fn) {
  return (self, ...args) => apply(fn, self, args);
}

export const MapCtor = Map;
export const mapGet = uncurry(Map.prototype.get);
export const mapSet = uncurry(Map.prototype.set);
export const mapDelete = uncurry(Map.prototype.delete);
export const mapHas = uncurry(Map.prototype.has);
export const SetCtor = Set;
export const setAdd = uncurry(Set.prototype.add);
export const setDelete = uncurry(Set.prototype.delete);
export const setForEach = uncurry(Set.prototype.forEach);
export const arraySort = uncurry(Array.prototype.sort);
export const WeakMapCtor = WeakMap;
export const weakGet = uncurry(WeakMap.prototype.get);
export const weakSet = uncurry(WeakMap.prototype.set);
export const PromiseCtor = Promise;
export const promiseThen = uncurry(Promise.prototype.then);
export const promiseResolve = (v) => apply(Promise.resolve, PromiseCtor, [v]);
export const dateNow = Date.now;
export const ErrorCtor = Error;
export const TypeErrorCtor = TypeError;
export const U8 = Uint8Array;

const coded = new WeakMap();
const weakMapSet = uncurry(WeakMap.prototype.set);
const weakMapGet = uncurry(WeakMap.prototype.get);

/**
 * An Error carrying a stable `code` (how the runtime reports a refused operation). The code is
 * also remembered here, so a plugin that rethrows it cannot have changed it (failureOf).
 */
export function codedError(Ctor, code, message) {
  const e = new Ctor(message);
  defineProperty(e, "code", { value: code, writable: true, configurable: true, enumerable: false });
  weakMapSet(coded, e, { code, message });
  return e;
}

/** {code, message} of an error codedError made, else undefined. */
export function failureOf(e) {
  return (typeof e === "object" || typeof e === "function") && e !== null ? weakMapGet(coded, e) : undefined;
}

/**
 * Defines `name` on `target` the way Web IDL does (writable, configurable, not enumerable).
 * With `lazy`, the value is built on first read (an accessor that replaces itself with the data
 * property), so a context pays for a large API only when its code uses it.
 */
export function defineGlobal(target, name, value, lazy = false) {
  if (!lazy) {
    defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
    return;
  }
  defineProperty(target, name, {
    configurable: true,
    enumerable: false,
    get() {
      const built = value();
      defineProperty(target, name, { value: built, writable: true, configurable: true, enumerable: false });
      return built;
    },
    set(v) {
      defineProperty(target, name, { value: v, writable: true, configurable: true, enumerable: false });
    },
  });
}
