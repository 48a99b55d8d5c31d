// One loaded plugin version inside isolated-vm: its isolate (memoryLimit = memoryMb), the
// compiled bundle (bundle-compiler.ts: V8 code cache), and one context per agent created on first
// use and reused (contexts.ts: LRU-capped; the load probe's context serves the first agent).
// Two ways in. Async (in-process): `apply`, the sync part under the isolate `timeout` (cpuMs), and
// a watchdog sampling `isolate.cpuTime` for what runs after an await. Sync (`syncEntry`, a worker
// process): `applySync` under the same timeout; a ctx call leaves through the generation's send()
// and its answer re-enters through the context's settle() under a `timeout` of the call's CPU
// left (charged exactly from `isolate.cpuTime` around every entry), so no code runs unbounded and
// no watchdog is needed. Either way a call that passes cpuMs after an await resets the isolate.
// Invariants: plugin code never receives a Reference/ExternalCopy/ivm object (the bootstrap takes
// the bridge and send References and deletes them); a disposed isolate is replaced on next use,
// and its calls in flight fail at once with the reason's code; every failure
// leaves this file as an AirlockError with an AIRLOCK_SANDBOX_* code.
// isolated-vm reports failures only as messages (no codes): classify() is the one place that
// reads them, and prefers what this file itself recorded (why it disposed the isolate).
import { AirlockError } from "@airlock/sdk/errors";
import type ivm from "isolated-vm";
import { BundleCompiler } from "./bundle-compiler.ts";
import { CallMeter } from "./call-meter.ts";
import type { AgentContext, ContextLease } from "./contexts.ts";
import { abortError } from "./deadline.ts";
import { sandboxError } from "./errors.ts";
import {
  type DisposeReason,
  decodeEnvelope,
  type EngineBridge,
  type Execution,
  Generation,
  messageOf,
  type PromptAnswer,
  splitMeter,
} from "./generation.ts";
import { type IsolatePool, prepareContext } from "./isolate-pool.ts";
import { limitError } from "./limit-errors.ts";
import { afterCallIn, endedByLimit, isRetired, retireGeneration } from "./retire.ts";
import { CallTimers } from "./runtime/index.ts";
import type { SandboxPlugin } from "./types.ts";
import { sample, WATCHDOG_GRACE_MS, type WatchHooks, watch } from "./watchdog.ts";

export type { EngineBridge };

export interface RuntimeOptions {
  maxContexts: number;
  watchIntervalMs: number;
  onWarning: (message: string) => void;
  /**
   * Enter plugin code with `applySync` and let ctx calls leave synchronously (a worker process,
   * whose thread serves nothing else); false: async `apply` and the bridge Reference (in-process).
   */
  syncEntry?: boolean;
  /** Called before each synchronous entry with how long the previous one took (ms). */
  beforeEntry?: (lastEntryMs: number, pluginKey: string) => void;
  /** Where new isolates come from (the engine's: one kept ready). */
  isolates: IsolatePool;
}

/** What a sync entry returns when the isolate is gone (the call has failed through `fail`). */
const GONE = Symbol("gone");

let nextSeq = 1;
let nextBid = 1;
/** Wall time of the last synchronous entry (any plugin of this process), for beforeEntry. */
let lastEntryMs = 0;

export class PluginRuntime {
  readonly plugin: SandboxPlugin;
  #options: RuntimeOptions;
  #gen: Generation | null = null;
  /** A generation being made (#generation). */
  #making: Promise<Generation> | null = null;
  readonly #compiler: BundleCompiler;
  #ended: "unload" | "close" | null = null;
  /** The code cache being made again after a first call (run): never rejects. */
  #warming: Promise<void> | null = null;

  constructor(plugin: SandboxPlugin, options: RuntimeOptions) {
    this.plugin = plugin;
    this.#options = options;
    this.#compiler = new BundleCompiler(plugin, options.onWarning);
  }

  /**
   * The code cache being made again after this runtime's first call, or null: the engine lets it
   * finish before it disposes the runtime (unload, close), so the warmed cache is kept and written.
   */
  get warming(): Promise<void> | null {
    return this.#warming;
  }

  get busy(): number {
    return this.#gen?.executions.size ?? 0;
  }

  /** Compiles the bundle, runs it in a probe context and checks it exports every manifest tool. */
  async prepare(): Promise<void> {
    const gen = await this.#generation();
    const probe = await this.#createContext(gen);
    let kept = false;
    try {
      const names = await probe.run.apply(undefined, [0, "", "", "", 0], {
        timeout: this.plugin.limits.cpuMs,
        result: { promise: true },
      });
      const exported = new Set(String(names).slice(1).split(","));
      const missing = this.plugin.manifest.tools.map((t) => t.name).filter((n) => !exported.has(n));
      if (missing.length > 0) {
        throw sandboxError(
          "AIRLOCK_SANDBOX_BUNDLE_INVALID",
          `the bundle does not export ${missing.join(", ")}`,
          {
            missing,
          },
        );
      }
      // the probe ran only the bundle and listed names: the first agent's call takes it as its
      // fresh context (saves a second bundle run on cold start)
      gen.spare = probe;
      kept = true;
    } finally {
      if (!kept) gen.releaseContext(probe);
    }
  }

  /** Runs one tool call; resolves to the result JSON, rejects with an AirlockError. */
  async run(
    tool: string,
    inputJson: string,
    agent: string,
    contextJson: string,
    bridge: EngineBridge,
    deadline: AbortSignal,
    callWallMs = this.plugin.limits.wallMs,
  ): Promise<string> {
    const gen = this.#live() ?? (await this.#generation());
    gen.preparing++; // creating a context runs the bundle: not code left behind by an ended call
    let lease: ContextLease;
    const takeSpare = () => {
      const spare = gen.spare;
      gen.spare = null;
      return spare ? Promise.resolve(spare) : this.#createContext(gen);
    };
    try {
      lease =
        this.plugin.contextPerCall === true
          ? singleUse(gen, await takeSpare())
          : (gen.contexts.acquireReady(agent) ?? (await gen.contexts.acquire(agent, takeSpare)));
    } finally {
      gen.preparing--;
    }
    const seq = nextSeq++;
    const exec: Execution = { bridge, cpuNs: 0, startedAt: Date.now(), exceeded: false, wallMs: callWallMs };
    const sync = gen.sendRef !== null;
    exec.fire = lease.ctx.fire;
    if (sync) {
      exec.settle = lease.ctx.settle;
      exec.meter = new CallMeter(this.plugin.limits.capabilityCalls);
      gen.strayNs = 0;
    } else {
      const hooks = this.#hooks(gen);
      // CPU burnt so far belongs to the calls already in flight (or to code left running)
      if (gen.timer) sample(gen, hooks);
    }
    gen.executions.set(seq, exec);
    if (!sync) watch(gen, this.#hooks(gen));
    const { cpuMs, maxResultBytes } = this.plugin.limits;
    const wallMs = callWallMs;
    // one way to end the call early: the deadline, or `fail` (a reset isolate, a budget overrun)
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      exec.fail = reject;
      onAbort = () => {
        // retired now, not once the race below settles: a call that arrives in the same turn
        // (the host's next call right behind this one's cancel) must not be handed this isolate
        retireGeneration(gen, this.#retired);
        reject(abortError(deadline, wallMs));
      };
      if (deadline.aborted) onAbort();
      else deadline.addEventListener("abort", onAbort, { once: true });
    });
    const args = [seq, tool, inputJson, contextJson, maxResultBytes, this.plugin.limits.capabilityCalls];
    let entered: Promise<unknown>;
    if (sync) {
      try {
        const out = this.#enter(gen, exec, () =>
          lease.ctx.run.applySync(undefined, args, { timeout: cpuMs, result: { promise: true } }),
        );
        entered = out === GONE ? stopped : out;
      } catch (error) {
        entered = Promise.reject(error);
      }
    } else {
      entered = lease.ctx.run.apply(undefined, args, { timeout: cpuMs, result: { promise: true } });
    }
    const applied = entered
      .then(
        (raw) => {
          const { refused, envelope } = splitMeter(String(raw));
          // calls the isolate refused itself past the cap: told to the host, which counts them
          if (refused > 0) bridge.refused?.("ctx", "call", "AIRLOCK_BRIDGE_CALL_LIMIT", refused);
          return decodeEnvelope(envelope);
        },
        (error: unknown) => {
          throw this.#classify(gen, exec, error);
        },
      )
      .finally(() => {
        lease.release();
        gen.executions.delete(seq);
        afterCallIn(gen, this.#retired);
      });
    try {
      return await Promise.race([applied, stopped]);
    } catch (error) {
      // a call ended by a limit leaves nothing behind (retire.ts)
      if (endedByLimit((error as { code?: string }).code)) {
        exec.bridge = null;
        gen.executions.delete(seq); // the call is over, even if its code never settles
        retireGeneration(gen, this.#retired);
      }
      throw error;
    } finally {
      if (onAbort) deadline.removeEventListener("abort", onAbort);
      exec.meter?.end(bridge);
      exec.bridge = null;
      gen.timers.cancel(seq);
      if (sync) {
        // nothing runs in the isolate unless entered: a call that ended early holds nothing
        lease.release();
        gen.executions.delete(seq);
        afterCallIn(gen, this.#retired);
      }
      // the loser of the race settles later (or never); the caller already has its outcome
      applied.catch(() => undefined);
      stopped.catch(() => undefined);
      // the first call after a compile that produced the code cache: the bundle's start and this
      // call's path are compiled now, so a cache made again holds them (bundle-compiler.ts); made
      // after the call has its answer, not before (≈ 3–5 ms for a 657 KB bundle)
      if (this.#compiler.warmPending && !gen.isolate.isDisposed)
        this.#warming ??= this.#compiler.warm(gen.isolate).finally(() => {
          this.#warming = null;
        });
    }
  }

  /**
   * Runs one synchronous entry into the generation's isolate and charges the CPU it burnt to
   * `exec` (or, with null, to code no call in flight owns). GONE when the isolate is disposed.
   */
  #enter<T>(gen: Generation, exec: Execution | null, body: () => T): T | typeof GONE {
    if (gen.isolate.isDisposed) return GONE;
    this.#options.beforeEntry?.(lastEntryMs, this.plugin.key);
    const before = gen.isolate.cpuTime;
    const startedAt = performance.now();
    try {
      return body();
    } finally {
      lastEntryMs = performance.now() - startedAt;
      if (!gen.isolate.isDisposed) {
        const spent = Number(gen.isolate.cpuTime - before);
        if (exec) exec.cpuNs += spent;
        else gen.strayNs += spent;
      }
    }
  }

  /**
   * Sync entry: forwards one ctx call to the host; its answer goes back as send()'s result when it
   * came within this entry (EngineBridge.ask), else it settles in the isolate when it comes.
   */
  #send(
    gen: Generation,
    exec: Execution,
    capability: string,
    method: string,
    args: unknown[],
  ): number | PromptAnswer {
    const bridge = exec.bridge!;
    // admitted or refused before anything is serialised or sent (call-meter.ts)
    const meter = exec.meter;
    const bytes = meter === undefined ? 0 : meter.admit(bridge, capability, method, args);
    if (typeof bytes !== "number") return bytes;
    const asked =
      bridge.ask === undefined ? bridge(capability, method, args) : bridge.ask(capability, method, args);
    if (isPromptAnswer(asked)) {
      meter?.answered(bytes);
      return asked;
    }
    const bid = nextBid++;
    asked.then(
      (value) => {
        meter?.answered(bytes);
        this.#settle(gen, exec, [bid, true, value]);
      },
      (error: unknown) => {
        meter?.answered(bytes);
        const code =
          error instanceof AirlockError || hasStringCode(error) ? error.code : "AIRLOCK_BRIDGE_FAILED";
        const message = error instanceof Error ? error.message : "the capability failed";
        this.#settle(gen, exec, [bid, false, code, message]);
      },
    );
    return bid;
  }

  /**
   * Enters the isolate to settle one ctx call. What runs then (the tool's code after its await) is
   * bounded by the isolate `timeout`: the call's CPU left, or, for a call that has ended, cpuMs
   * of code left running. Passing it resets the isolate (the call fails with CPU_LIMIT, its
   * siblings with ISOLATE_RESET; code left running is reported).
   */
  #settle(gen: Generation, exec: Execution, args: [number, boolean, unknown, string?]): void {
    if (exec.settle !== undefined) this.#reenter(gen, exec, exec.settle, args);
  }

  /**
   * The call's timer fired (CallTimers): enter its context's fire(seq), bounded like a settle —
   * synchronously under the CPU the call has left (workers), or with async apply under the same
   * timeout and the watchdog (in-process).
   */
  #fire(gen: Generation, seq: number): void {
    const exec = gen.executions.get(seq);
    if (exec?.bridge == null || exec.fire === undefined || gen.isolate.isDisposed) return;
    if (gen.sendRef !== null) {
      this.#reenter(gen, exec, exec.fire, [seq]);
      return;
    }
    const leftMs = this.plugin.limits.cpuMs + WATCHDOG_GRACE_MS - exec.cpuNs / 1e6;
    exec.fire.apply(undefined, [seq], { timeout: Math.max(1, Math.ceil(leftMs)) }).catch((error: unknown) => {
      if (exec.bridge !== null) exec.fail?.(this.#classify(gen, exec, error));
    });
  }

  #reenter(gen: Generation, exec: Execution, ref: ivm.Reference, args: unknown[]): void {
    if (gen.isolate.isDisposed) return;
    const { cpuMs } = this.plugin.limits;
    const live = exec.bridge !== null;
    const leftMs = live ? cpuMs + WATCHDOG_GRACE_MS - exec.cpuNs / 1e6 : cpuMs - gen.strayNs / 1e6;
    try {
      this.#enter(gen, live ? exec : null, () =>
        ref.applySync(undefined, args, {
          arguments: { copy: true },
          timeout: Math.max(1, Math.ceil(leftMs)),
        }),
      );
    } catch (error) {
      const message = messageOf(error);
      if (gen.reason === null && /timed out/i.test(message)) {
        if (live) exec.exceeded = true;
        else
          this.#options.onWarning(
            `${this.plugin.key}: code left running after its call ended; isolate reset`,
          );
        this.#disposeGeneration(gen, "cpu");
      }
      if (live) exec.fail?.(this.#classify(gen, exec, error));
    }
  }

  /** Ends this runtime for good (unload, replace, close); its calls in flight fail. */
  dispose(reason: "unload" | "close"): void {
    this.#ended = reason;
    const gen = this.#gen;
    this.#gen = null;
    if (gen) this.#disposeGeneration(gen, reason);
  }

  /** Disposes a retired generation (retire.ts): nothing of an ended call's code runs after. */
  readonly #retired = (gen: Generation): void => this.#disposeGeneration(gen, "unload");

  #disposeGeneration(gen: Generation, reason: DisposeReason): void {
    gen.timers.cancelAll();
    if (gen.timer) clearTimeout(gen.timer);
    gen.timer = null;
    if (gen.reason === null) gen.reason = reason;
    if (!gen.isolate.isDisposed) gen.isolate.dispose();
    if (this.#gen === gen) this.#gen = null;
    // the calls in flight end now with the reason's code (a promise into a disposed isolate
    // may never settle)
    for (const exec of gen.executions.values())
      exec.fail?.(this.#classify(gen, exec, new Error("the isolate was disposed")));
  }

  #endedError(): AirlockError | null {
    if (this.#ended === "close") return sandboxError("AIRLOCK_SANDBOX_CLOSED", "the sandbox was closed");
    if (this.#ended === "unload") return sandboxError("AIRLOCK_SANDBOX_UNLOADED", "the plugin was unloaded");
    return null;
  }

  /**
   * The generation a call can use now, without waiting (null: ended, or #generation makes one).
   * A generation whose bundle is still compiling is not usable yet: a call that arrives then
   * waits for the making (#generation) instead of running a bundle that is not there.
   */
  #live(): Generation | null {
    const gen = this.#gen;
    return this.#ended === null &&
      gen !== null &&
      gen.bundle !== null &&
      !gen.isolate.isDisposed &&
      !isRetired(gen)
      ? gen
      : null;
  }

  /** The live generation, or a new one (one at a time: concurrent callers share its making). */
  async #generation(): Promise<Generation> {
    const ended = this.#endedError();
    if (ended !== null) throw ended;
    const live = this.#live();
    if (live !== null) return live;
    this.#making ??= this.#newGeneration().finally(() => {
      this.#making = null;
    });
    return this.#making;
  }

  async #newGeneration(): Promise<Generation> {
    const fresh = await this.#options.isolates.take(this.plugin.limits.memoryMb);
    // ended while the isolate was being taken: it goes, unused
    const ended = this.#endedError();
    if (ended !== null) {
      fresh.isolate.dispose();
      throw ended;
    }
    // the timers re-enter this generation: `gen` is assigned before any timer can fire
    let gen: Generation;
    const timers = new CallTimers(
      this.plugin.limits.wallMs,
      (seq) => gen.executions.get(seq)?.bridge != null,
      (seq) => this.#fire(gen, seq),
    );
    gen = new Generation(
      fresh,
      this.#options.maxContexts,
      timers,
      () => {
        this.#options.onWarning(
          `${this.plugin.key}: code left running keeps calling ctx after its call ended; isolate reset`,
        );
        this.#disposeGeneration(gen, "cpu");
      },
      this.#options.syncEntry === true
        ? (exec, capability, method, args) => this.#send(gen, exec, capability, method, args)
        : undefined,
    );
    this.#gen = gen;
    gen.prepared = fresh.prepared;
    try {
      gen.bootstrap = fresh.bootstrap;
      gen.bundle = await this.#compiler.compile(gen.isolate);
    } catch (error) {
      // disposed under the compile (unload, close, replaced): the reason's code, not the bundle's
      const disposed = gen.reason !== null || gen.isolate.isDisposed;
      this.#disposeGeneration(gen, "unload");
      if (error instanceof AirlockError) throw error;
      const ended = this.#endedError();
      if (ended !== null) throw ended;
      if (disposed) throw this.#classify(gen, null, error);
      throw sandboxError(
        "AIRLOCK_SANDBOX_BUNDLE_INVALID",
        `the bundle does not compile: ${messageOf(error)}`,
      );
    }
    return gen;
  }

  /**
   * A fresh agent context: the isolate's prepared one for the first (its bootstrap already run),
   * else a new one with the bootstrap run now; then the bundle. Failures leave as AIRLOCK_SANDBOX_*
   * codes.
   */
  async #createContext(gen: Generation): Promise<AgentContext> {
    let made: AgentContext | null = gen.prepared;
    gen.prepared = null;
    let stage = "create";
    try {
      // a worker's thread serves nothing else: its context is made synchronously (no thread hop
      // per step); in-process, creating it and running the bootstrap stay async (the host's loop)
      const sync = this.#options.syncEntry === true;
      made ??= await prepareContext(gen.isolate, gen.bootstrap!, gen.wiring, sync);
      stage = "bundle";
      if (sync) gen.bundle!.runSync(made.context, { timeout: this.plugin.limits.cpuMs });
      else await gen.bundle!.run(made.context, { timeout: this.plugin.limits.cpuMs });
      return made;
    } catch (error) {
      if (made !== null) gen.releaseContext(made);
      // a full isolate is disposed by V8 mid-creation ("...disposed during execution due to
      // memory limit"): classify() names it; a bundle that throws or spins at start is invalid
      if (gen.isolate.isDisposed || gen.reason !== null || stage !== "bundle")
        throw this.#classify(gen, { bridge: null, cpuNs: 0, startedAt: 0, exceeded: false }, error);
      throw sandboxError("AIRLOCK_SANDBOX_BUNDLE_INVALID", `the bundle failed to start: ${messageOf(error)}`);
    }
  }

  #hooks(gen: Generation): WatchHooks {
    const { cpuMs, wallMs } = this.plugin.limits;
    return {
      cpuMs,
      wallMs,
      intervalMs: this.#options.watchIntervalMs,
      onExceeded: () => this.#disposeGeneration(gen, "cpu"),
      onBackground: () => {
        this.#options.onWarning(`${this.plugin.key}: code left running after its call ended; isolate reset`);
        this.#disposeGeneration(gen, "cpu");
      },
      onDisposed: () => this.#disposeGeneration(gen, "memory"),
    };
  }

  #classify(gen: Generation, exec: Execution | null, error: unknown): AirlockError {
    if (error instanceof AirlockError) return error;
    const message = messageOf(error);
    if (gen.reason === null && (/memory limit/i.test(message) || gen.isolate.isDisposed)) {
      this.#disposeGeneration(gen, "memory");
    }
    switch (gen.reason) {
      case "cpu":
        return exec === null || exec.exceeded
          ? limitError(
              "AIRLOCK_SANDBOX_CPU_LIMIT",
              "the call used too much CPU",
              "cpuMs",
              this.plugin.limits.cpuMs,
            )
          : sandboxError(
              "AIRLOCK_SANDBOX_ISOLATE_RESET",
              "another call of this plugin exhausted its CPU; retry",
            );
      case "memory":
        return limitError(
          "AIRLOCK_SANDBOX_MEMORY_LIMIT",
          "the plugin went over its memory limit",
          "memoryMb",
          this.plugin.limits.memoryMb,
        );
      case "unload":
        return sandboxError("AIRLOCK_SANDBOX_UNLOADED", "the plugin was unloaded");
      case "close":
        return sandboxError("AIRLOCK_SANDBOX_CLOSED", "the sandbox was closed");
      default:
        break;
    }
    if (/timed out/i.test(message)) {
      return limitError(
        "AIRLOCK_SANDBOX_CPU_LIMIT",
        "the call used too much CPU",
        "cpuMs",
        this.plugin.limits.cpuMs,
      );
    }
    if (IVM_FAILURE.test(message))
      return sandboxError("AIRLOCK_SANDBOX_INTERNAL", "the isolate failed unexpectedly", { reason: message });
    // The bootstrap's entries (run, settle, fire) never throw: what else leaves one is the value
    // of a promise plugin code rejected with no handler, which isolated-vm throws at the end of
    // the entry (its task epilogue) in place of the entry's result. The plugin's failure.
    return sandboxError("AIRLOCK_SANDBOX_TOOL_THREW", unhandledMessage(error));
  }
}

/**
 * isolated-vm's own failures on the host side of an entry (a released handle, arguments it could
 * not copy): the runtime's bugs, never plugin code's. Timeouts, memory and disposal are named
 * before this is consulted.
 */
const IVM_FAILURE =
  /^(Reference has been released|Context is released|Script has been released|Copy has been released|A non-transferable value was passed|Unsupported type|Invalid arguments payload|.* could not be cloned\.?)$/;

/** The message of a rejection plugin code left unhandled (a copy made by isolated-vm, or a primitive). */
function unhandledMessage(reason: unknown): string {
  const what =
    reason instanceof Error
      ? `${reason.name}: ${reason.message}`
      : typeof reason === "string"
        ? JSON.stringify(reason)
        : `a non-Error value (${reason === null ? "null" : typeof reason})`;
  const shown = what.length > 2000 ? `${what.slice(0, 2000)}…` : what;
  return `the tool left a promise rejected with no handler: ${shown}`;
}

/** A context for one call only (SandboxPlugin.contextPerCall): released when that call ends. */
function singleUse(gen: Generation, ctx: AgentContext): ContextLease {
  let held = true;
  return {
    ctx,
    release: () => {
      if (!held) return;
      held = false;
      gen.releaseContext(ctx);
    },
  };
}

function isPromptAnswer(asked: PromptAnswer | Promise<unknown>): asked is PromptAnswer {
  return Array.isArray(asked);
}

function hasStringCode(e: unknown): e is { code: string } {
  return typeof e === "object" && e !== null && typeof (e as { code?: unknown }).code === "string";
}
