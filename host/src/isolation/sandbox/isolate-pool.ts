// Fresh isolates for an engine's plugin generations, each with the bootstrap (the Web runtime and
// isolate/bootstrap.js) compiled in it, its wiring (wiring.ts) and one context prepared: created,
// the wiring's References set, the bootstrap run. One is kept ready, made in the background after
// the last one was taken, so a plugin's cold start (and the isolate that replaces a reset one)
// does not wait for creating an isolate, compiling the bootstrap and preparing its first context
// (≈ 1.1 + 0.5 ms, then 1.5–2.3 ms, on the 2-core dev VM).
// Invariants: an isolate leaves the pool once, to one generation, and has run no code but the
// bootstrap, in its prepared context; a spare made for another memory limit is disposed, never
// handed out; after close() no isolate is handed out or kept (one still being made is disposed
// when done).
import { readFileSync } from "node:fs";
import ivm from "isolated-vm";
import type { AgentContext } from "./contexts.ts";
import { sandboxError } from "./errors.ts";
import { oneByte, WEB_RUNTIME_SOURCE } from "./runtime/index.ts";
import { IsolateWiring } from "./wiring.ts";

// the Web runtime first, then the bootstrap (which installs it): one script, compiled once per
// isolate from a code cache this process produces on its first compile (our own code); a
// one-byte string (runtime/sources.ts: every isolate keeps a copy of its source)
const BOOTSTRAP_SOURCE = oneByte(
  `${WEB_RUNTIME_SOURCE}\n;\n${readFileSync(new URL("./isolate/bootstrap.js", import.meta.url), "utf8")}`,
  "the bootstrap",
);
let bootstrapCache: ivm.ExternalCopy<ArrayBuffer> | undefined;

export interface FreshIsolate {
  isolate: ivm.Isolate;
  /** The bootstrap, compiled in `isolate`. */
  bootstrap: ivm.Script;
  /** The References its contexts hold, for the generation to adopt. */
  wiring: IsolateWiring;
  /** A context with the bootstrap run in it and no plugin code: the generation's first. */
  prepared: AgentContext;
}

interface Spare {
  memoryMb: number;
  ready: Promise<FreshIsolate | null>;
}

export class IsolatePool {
  #spare: Spare | null = null;
  #closed = false;
  /** Whether the isolates' wiring has the synchronous way out (a worker process). */
  readonly #syncEntry: boolean;

  constructor(options: { syncEntry: boolean }) {
    this.#syncEntry = options.syncEntry;
  }

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
    fresh ??= await makeFresh(memoryMb, this.#syncEntry);
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
      .then(() => (this.#closed ? null : makeFresh(memoryMb, this.#syncEntry)))
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

async function makeFresh(memoryMb: number, syncEntry: boolean): Promise<FreshIsolate> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  try {
    const bootstrap = await compileBootstrap(isolate);
    const wiring = new IsolateWiring(syncEntry);
    // made off any call's path: async, on the isolate's thread
    const prepared = await prepareContext(isolate, bootstrap, wiring, false);
    return { isolate, bootstrap, wiring, prepared };
  } catch (error) {
    isolate.dispose();
    throw error;
  }
}

/**
 * A new context in `isolate`: the wiring's References set as the globals the bootstrap takes and
 * deletes, then the bootstrap run; no plugin code. `sync`: every step on this thread (a worker's
 * thread serves nothing else: no thread hop per step); else async (the host's loop in-process).
 * A failure releases what was made and rethrows (the caller classifies it).
 */
export async function prepareContext(
  isolate: ivm.Isolate,
  bootstrap: ivm.Script,
  wiring: IsolateWiring,
  sync: boolean,
): Promise<AgentContext> {
  let context: ivm.Context | null = null;
  const refs: ivm.Reference[] = [];
  try {
    context = sync ? isolate.createContextSync() : await isolate.createContext();
    // setting a global is a few microseconds: never worth a hop to the isolate's thread and back
    context.global.setSync("__airlockBridge", wiring.bridgeRef);
    if (wiring.sendRef) context.global.setSync("__airlockSend", wiring.sendRef);
    context.global.setSync("__airlockRuntime", wiring.runtimeRef);
    const triple = (
      sync
        ? bootstrap.runSync(context, { reference: true })
        : await bootstrap.run(context, { reference: true })
    ) as ivm.Reference<unknown[]>;
    for (let i = 0; i < 3; i++) refs.push(triple.getSync(i, { reference: true }) as ivm.Reference);
    triple.release();
    const [run, settle, fire] = refs as [AgentContext["run"], AgentContext["settle"], AgentContext["fire"]];
    return { context, run, settle, fire };
  } catch (error) {
    if (!isolate.isDisposed) {
      for (const ref of refs) ref.release();
      context?.release();
    }
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

/** A stand-in plugin for warming: a tool that reads its input, asks ctx once and returns data. */
const WARM_PLUGIN = `globalThis.__airlockPlugin = { tools: { warm: async (input, ctx) => {
  ctx.state.get("k").catch(() => undefined);
  return { text: String(input.text), list: [1, true, null, { n: 2 }] };
} } };`;
const WARM_CONTEXT = JSON.stringify({
  instanceId: "warm",
  conversationId: "warm",
  toolId: "warm:warm",
  conversation: [],
  attachments: [],
  knowledgeLevel: null,
});

/**
 * The bootstrap's code cache with the functions a context's start and its first calls run
 * already compiled: V8 caches only what was compiled when the cache is made, so the script is
 * first run once in a scratch isolate (dummy References, a stand-in plugin of our own), asked
 * for its tool names as a load's probe does and made to serve one call, and compiled again
 * there. Without the run, a cold start compiles the Web runtime's install path lazily (measured:
 * 3.4–25 ms of CPU per new isolate against 0.9 ms with the warmed cache; the bootstrap alone
 * took 0.8–1.0 ms); without the probe and the call, every new isolate compiles `run`, makeCtx
 * and the result's serialisation on its first two entries (a 657 KB bundle's cold start, code
 * cache: probe 0.57–0.72 → 0.19–0.23 ms, first call 1.4–1.9 → 0.60–0.66 ms).
 */
async function warmBootstrapCache(filename: string): Promise<ivm.ExternalCopy<ArrayBuffer> | undefined> {
  const scratch = new ivm.Isolate({ memoryLimit: 32 });
  try {
    const first = await scratch.compileScript(BOOTSTRAP_SOURCE, { filename });
    // a worker's wiring (send returns a call number; the answer never comes here)
    const prepared = await prepareContext(scratch, first, new IsolateWiring(true), false);
    await prepared.context.eval(WARM_PLUGIN, { timeout: 5000 });
    const options = { timeout: 5000, result: { promise: true } } as const;
    await prepared.run.apply(undefined, [0, "", "", "", 0], options);
    await prepared.run.apply(undefined, [1, "warm", '{"text":"warm"}', WARM_CONTEXT, 1_000_000], options);
    const again = (await scratch.compileScript(BOOTSTRAP_SOURCE, {
      filename,
      produceCachedData: true,
    })) as ivm.Script & ivm.CachedDataResult;
    return again.cachedData;
  } finally {
    scratch.dispose();
  }
}
