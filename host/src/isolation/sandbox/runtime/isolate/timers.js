// setTimeout, setInterval, clearTimeout, clearInterval and queueMicrotask, bounded by the call.
// A timer belongs to the call whose code set it (the call the host last entered this context
// for: its start, a ctx answer, or a timer of it) and lives only while that call runs:
// - end(seq) (the call settled) drops its timers; a call ended by a limit retires the whole
//   isolate (retire.ts), so nothing it queued ever runs; a timer set when no call of this
//   context is in flight (after its call ended, at bundle load) is accepted and never fires;
// - at most MAX_PENDING timers per call (the next setTimeout throws AIRLOCK_SANDBOX_TIMER_LIMIT);
//   delays are clamped to [0, 2^31-1] ms here and to the call's wall time by the host; nested
//   timers (deeper than 5) and intervals wait at least 4 ms, as HTML says;
// - the host is told only when a call's earliest timer moves earlier (`wake(seq, ms)`, data only:
//   two numbers), and enters `fire(seq)` to run what is due; a throw in a callback (or in a
//   queueMicrotask callback) fails the call that set it, through `onUncaught`.
import {
  apply,
  arraySort,
  codedError,
  dateNow,
  MapCtor,
  mapDelete,
  mapGet,
  mapSet,
  promiseResolve,
  promiseThen,
  SetCtor,
  setAdd,
  setDelete,
  setForEach,
  TypeErrorCtor,
} from "./intrinsics.js";

export const MAX_PENDING = 1000;
export const MAX_DELAY_MS = 2 ** 31 - 1;
const NESTING_CLAMP = 5;
const MIN_NESTED_MS = 4;

export function createTimers(wake, onUncaught) {
  /** seq → { ids: Set, armedAt } for calls in flight in this context. */
  const calls = new MapCtor();
  /** id → { seq, fn, args, delay, due, repeat, nesting } */
  const all = new MapCtor();
  let nextId = 1;
  let current = 0;
  let nesting = 0;
  const resolved = promiseResolve(undefined);

  function arm(call, seq, due) {
    if (due >= call.armedAt) return;
    call.armedAt = due;
    const ms = due - dateNow();
    wake(seq, ms > 0 ? ms : 0);
  }

  function schedule(fn, delay, args, repeat) {
    if (typeof fn !== "function") {
      throw new TypeErrorCtor("the callback must be a function (a string of code is not evaluated)");
    }
    let ms = +delay;
    if (!(ms > 0)) ms = 0;
    if (ms > MAX_DELAY_MS) ms = MAX_DELAY_MS;
    if ((nesting >= NESTING_CLAMP || repeat) && ms < MIN_NESTED_MS) ms = MIN_NESTED_MS;
    const id = nextId++;
    const seq = current;
    const call = mapGet(calls, seq);
    if (call === undefined) return id; // no call of this context in flight: it never fires
    if (call.ids.size >= MAX_PENDING) {
      throw codedError(
        RangeError,
        "AIRLOCK_SANDBOX_TIMER_LIMIT",
        `at most ${MAX_PENDING} timers may be pending in one call`,
      );
    }
    const due = dateNow() + ms;
    mapSet(all, id, { seq, fn, args, delay: ms, due, repeat, nesting: nesting + 1 });
    setAdd(call.ids, id);
    arm(call, seq, due);
    return id;
  }

  function clear(id) {
    const key = typeof id === "number" ? id : +id;
    const t = mapGet(all, key);
    if (t === undefined) return;
    mapDelete(all, key);
    const call = mapGet(calls, t.seq);
    if (call !== undefined) setDelete(call.ids, key);
  }

  /** Runs the timers of `seq` that are due, in due order, then asks for the next wake. */
  function fire(seq) {
    const call = mapGet(calls, seq);
    if (call === undefined) return;
    current = seq;
    call.armedAt = Infinity;
    const now = dateNow();
    const due = [];
    setForEach(call.ids, (id) => {
      if (mapGet(all, id).due <= now) due[due.length] = id;
    });
    // due order, then the order they were set in (ids grow)
    arraySort(due, (a, b) => mapGet(all, a).due - mapGet(all, b).due || a - b);
    // one callback per microtask turn: what a callback queues runs before the next one
    let i = 0;
    const step = () => {
      if (mapGet(calls, seq) !== call) return; // the call failed (uncaught) and was ended
      while (i < due.length) {
        const id = due[i++];
        const t = mapGet(all, id);
        if (t === undefined) continue; // cleared by an earlier callback
        runOne(call, seq, id, t);
        promiseThen(resolved, step);
        return;
      }
      let next = Infinity;
      setForEach(call.ids, (id) => {
        const d = mapGet(all, id).due;
        if (d < next) next = d;
      });
      if (next !== Infinity) arm(call, seq, next);
    };
    step();
  }

  function runOne(call, seq, id, t) {
    if (!t.repeat) {
      mapDelete(all, id);
      setDelete(call.ids, id);
    }
    current = seq;
    nesting = t.nesting;
    try {
      apply(t.fn, undefined, t.args);
    } catch (error) {
      onUncaught(seq, error);
    } finally {
      nesting = 0;
    }
    if (t.repeat && mapGet(all, id) === t) {
      t.nesting++;
      t.due = dateNow() + t.delay;
    }
  }

  const api = {
    setTimeout: (fn, delay = 0, ...args) => schedule(fn, delay, args, false),
    setInterval: (fn, delay = 0, ...args) => schedule(fn, delay, args, true),
    clearTimeout: (id) => clear(id),
    clearInterval: (id) => clear(id),
    queueMicrotask: (fn) => {
      if (typeof fn !== "function") throw new TypeErrorCtor("queueMicrotask needs a function");
      const seq = current;
      promiseThen(resolved, () => {
        try {
          apply(fn, undefined, []);
        } catch (error) {
          onUncaught(seq, error);
        }
      });
    },
  };

  return {
    api,
    /** A call starts running in this context. */
    begin(seq) {
      mapSet(calls, seq, { ids: new SetCtor(), armedAt: Infinity });
      current = seq;
    },
    /** Code of `seq` runs now (a ctx answer re-entered the context for it). */
    enter(seq) {
      current = seq;
    },
    /** The call settled: its pending timers are dropped. */
    end(seq) {
      const call = mapGet(calls, seq);
      if (call === undefined) return;
      mapDelete(calls, seq);
      setForEach(call.ids, (id) => mapDelete(all, id));
    },
    fire,
    pending: (seq) => mapGet(calls, seq)?.ids.size ?? 0,
  };
}
