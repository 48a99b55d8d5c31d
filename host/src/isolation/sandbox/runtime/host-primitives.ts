// The one Reference the isolate-side Web runtime may call (taken and deleted by the bootstrap,
// never visible to plugin code): ("wake", seq, ms) arms the call's timer (CallTimers),
// ("random", n) returns n bytes from the host's CSPRNG, and ("module", "url") the source text of
// URL's bundle (web-url.bundle.js), which the runtime evaluates on a context's first use of URL.
// Why this is safe: the operations are synchronous and data-only. Numbers go in; nothing comes
// out but `undefined`, fresh random bytes or a constant of our own, which carry no host state,
// identity or capability; none touches a store, a secret, a token or the bridge. `wake` only
// schedules an entry into the same isolate for a call the runtime still has in flight (anything
// else is ignored), and that entry is bounded like every other (the call's CPU budget; the call's
// wall deadline). `random` refuses anything but an integer in [1, 65536]; `module` anything but
// "url".
import { randomBytes } from "node:crypto";
import ivm from "isolated-vm";
import type { CallTimers } from "./call-timers.ts";
import { WEB_URL_SOURCE } from "./sources.ts";

export const MAX_RANDOM_BYTES = 65536;

/**
 * URL's source, made once per process: each isolate's copy of it is an external string over
 * these same bytes (isolated-vm shares a copy's buffer), not one more copy of 320 KB.
 */
let urlSource: ivm.ExternalCopy<string> | undefined;

export function createHostPrimitives(timers: Pick<CallTimers, "wake">): ivm.Reference {
  return new ivm.Reference((op: unknown, a: unknown, b: unknown) => {
    if (op === "wake") {
      timers.wake(a, b);
      return undefined;
    }
    if (op === "random" && typeof a === "number" && Number.isInteger(a) && a >= 1 && a <= MAX_RANDOM_BYTES) {
      const bytes = randomBytes(a);
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    if (op === "module" && a === "url") {
      urlSource ??= new ivm.ExternalCopy(WEB_URL_SOURCE);
      return urlSource.copyInto();
    }
    throw new Error("malformed runtime request");
  });
}
