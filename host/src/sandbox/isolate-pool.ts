// Fresh isolates for an engine's plugin generations, each with the bootstrap (the Web runtime and
// isolate/bootstrap.js) already compiled in it. One is kept ready, made in the background after the
// last one was taken, so a plugin's cold start (and the isolate that replaces a reset one) does not
// wait for creating an isolate and compiling the bootstrap (≈ 1.1 + 0.5 ms on the 2-core dev VM).
// Invariants: an isolate leaves the pool once, to one generation, and has run no code (the bootstrap
// is compiled in it, not run); a spare made for another memory limit is disposed, never handed
// out; after close() no isolate is handed out or kept (one still being made is disposed when done).
import { readFileSync } from "node:fs";
import ivm from "isolated-vm";
import { sandboxError } from "./errors.ts";
import { WEB_RUNTIME_SOURCE } from "./runtime/index.ts";

// the Web runtime first, then the bootstrap (which installs it): one script, compiled once per
// isolate from a code cache this process produces on its first compile (our own code)
const BOOTSTRAP_SOURCE = `${WEB_RUNTIME_SOURCE}\n;\n${readFileSync(new URL("./isolate/bootstrap.js", import.meta.url), "utf8")}`;
let bootstrapCache: ivm.ExternalCopy<ArrayBuffer> | undefined;

export interface FreshIsolate {
  isolate: ivm.Isolate;
  /** The bootstrap, compiled in `isolate`. */
  bootstrap: ivm.Script;
}

interface Spare {
  memoryMb: number;
  ready: Promise<FreshIsolate | null>;
}

export class IsolatePool {
  #spare: Spare | null = null;
  #closed = false;

  /** A fresh isolate with `memoryLimit: memoryMb`: the spare when it fits, else one made now. */
  async take(memoryMb: number): Promise<FreshIsolate> {
    if (this.#closed) throw sandboxError("AIRLOCK_SANDBOX_CLOSED", "the sandbox was closed");
    const spare = this.#spare;
    this.#spare = null;
    let fresh: FreshIsolate | null = null;
    if (spare !== null) {
      const made = await spare.ready;
      if (made !== null && (spare.memoryMb !== memoryMb || this.#closed)) made.isolate.dispose();
      else fresh = made;
    }
    if (this.#closed) {
      fresh?.isolate.dispose();
      throw sandboxError("AIRLOCK_SANDBOX_CLOSED", "the sandbox was closed");
    }
    fresh ??= await makeFresh(memoryMb);
    this.#refill(memoryMb);
    return fresh;
  }

  /** Disposes the spare (now, or once it is made). */
  close(): void {
    this.#closed = true;
    const spare = this.#spare;
    this.#spare = null;
    void spare?.ready.then((made) => made?.isolate.dispose());
  }

  #refill(memoryMb: number): void {
    if (this.#closed || this.#spare !== null) return;
    // after the current turn: the isolate is made off the path of the call that took the last one
    const ready = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => (this.#closed ? null : makeFresh(memoryMb)))
      .then(
        (made) => {
          if (made !== null && this.#closed) {
            made.isolate.dispose();
            return null;
          }
          return made;
        },
        () => null, // the next take makes its own (and reports what fails then)
      );
    this.#spare = { memoryMb, ready };
  }
}

async function makeFresh(memoryMb: number): Promise<FreshIsolate> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  try {
    return { isolate, bootstrap: await compileBootstrap(isolate) };
  } catch (error) {
    isolate.dispose();
    throw error;
  }
}

/** Compiles the bootstrap (Web runtime + bootstrap.js), from this process's code cache once made. */
async function compileBootstrap(isolate: ivm.Isolate): Promise<ivm.Script> {
  const filename = "airlock:bootstrap.js";
  bootstrapCache ??= await warmBootstrapCache(filename);
  if (bootstrapCache === undefined) return isolate.compileScript(BOOTSTRAP_SOURCE, { filename });
  const cachedData = bootstrapCache;
  const script = (await isolate.compileScript(BOOTSTRAP_SOURCE, { filename, cachedData })) as ivm.Script & {
    cachedDataRejected?: boolean;
  };
  if (script.cachedDataRejected !== true) return script;
  return isolate.compileScript(BOOTSTRAP_SOURCE, { filename });
}

/**
 * The bootstrap's code cache with the functions a context's start runs already compiled: V8
 * caches only what was compiled when the cache is made, so the script is first run once in a
 * scratch isolate (dummy References, no plugin code) and compiled again there. Without this, a
 * cold start compiles the Web runtime's install path lazily (measured: 3.4–25 ms of CPU per new
 * isolate against 0.9 ms with the warmed cache; the bootstrap alone took 0.8–1.0 ms).
 */
async function warmBootstrapCache(filename: string): Promise<ivm.ExternalCopy<ArrayBuffer> | undefined> {
  const scratch = new ivm.Isolate({ memoryLimit: 32 });
  try {
    const first = await scratch.compileScript(BOOTSTRAP_SOURCE, { filename });
    const context = await scratch.createContext();
    await context.global.set("__airlockBridge", new ivm.Reference(() => undefined));
    await context.global.set("__airlockRuntime", new ivm.Reference(() => undefined));
    await first.run(context, { timeout: 5000 });
    const again = (await scratch.compileScript(BOOTSTRAP_SOURCE, {
      filename,
      produceCachedData: true,
    })) as ivm.Script & ivm.CachedDataResult;
    return again.cachedData;
  } finally {
    scratch.dispose();
  }
}
