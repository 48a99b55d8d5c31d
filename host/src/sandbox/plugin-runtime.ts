// One loaded plugin version inside isolated-vm: its isolate (memoryLimit = memoryMb), the
// compiled bundle (bundle-compiler.ts: V8 code cache), and one context per agent created on first
// use and reused (contexts.ts: LRU-capped; the load probe's context serves the first agent). Enters plugin code only with async `apply`; the sync part of a call
// runs under the isolate `timeout` (cpuMs) and a watchdog samples `isolate.cpuTime` for what runs
// after an await, resetting the isolate when a call passes cpuMs.
// Invariants: plugin code never receives a Reference/ExternalCopy/ivm object (the bootstrap takes
// the bridge Reference and deletes it); a disposed isolate is replaced on next use; every failure
// leaves this file as an AirlockError with an AIRLOCK_SANDBOX_* code.
// isolated-vm reports failures only as messages (no codes): classify() is the one place that
// reads them, and prefers what this file itself recorded (why it disposed the isolate).
import { readFileSync } from "node:fs";
import { AirlockError } from "@airlock/sdk/errors";
import type ivm from "isolated-vm";
import { BundleCompiler } from "./bundle-compiler.ts";
import type { ContextLease } from "./contexts.ts";
import { abortError } from "./deadline.ts";
import { sandboxError } from "./errors.ts";
import {
  type AgentContext,
  type DisposeReason,
  decodeEnvelope,
  type EngineBridge,
  type Execution,
  Generation,
  messageOf,
} from "./generation.ts";
import { limitError } from "./limit-errors.ts";
import { afterCallIn, endedByLimit, isRetired, retireGeneration } from "./retire.ts";
import type { CallContextData, SandboxPlugin } from "./types.ts";
import { sample, type WatchHooks, watch } from "./watchdog.ts";

export type { EngineBridge };

const BOOTSTRAP_SOURCE = readFileSync(new URL("./isolate/bootstrap.js", import.meta.url), "utf8");

export interface RuntimeOptions {
  maxContexts: number;
  watchIntervalMs: number;
  onWarning: (message: string) => void;
}

let nextSeq = 1;

export class PluginRuntime {
  readonly plugin: SandboxPlugin;
  #options: RuntimeOptions;
  #gen: Generation | null = null;
  readonly #compiler: BundleCompiler;
  #ended: "unload" | "close" | null = null;

  constructor(plugin: SandboxPlugin, options: RuntimeOptions) {
    this.plugin = plugin;
    this.#options = options;
    this.#compiler = new BundleCompiler(plugin, options.onWarning);
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
    context: CallContextData,
    bridge: EngineBridge,
    deadline: AbortSignal,
  ): Promise<string> {
    const gen = await this.#generation();
    gen.preparing++; // creating a context runs the bundle: not code left behind by an ended call
    let lease: ContextLease;
    try {
      lease = await gen.contexts.acquire(context.instanceId, () => {
        const spare = gen.spare;
        gen.spare = null;
        return spare ? Promise.resolve(spare) : this.#createContext(gen);
      });
    } finally {
      gen.preparing--;
    }
    const seq = nextSeq++;
    const exec: Execution = { bridge, cpuNs: 0, startedAt: Date.now(), exceeded: false };
    const hooks = this.#hooks(gen);
    // CPU burnt so far belongs to the calls already in flight (or to code left running)
    if (gen.timer) sample(gen, hooks);
    gen.executions.set(seq, exec);
    watch(gen, hooks);
    const { cpuMs, maxResultBytes } = this.plugin.limits;
    const applied = lease.ctx.run
      .apply(undefined, [seq, tool, inputJson, JSON.stringify(context), maxResultBytes], {
        timeout: cpuMs,
        result: { promise: true },
      })
      .then(
        (raw) => decodeEnvelope(String(raw)),
        (error: unknown) => {
          throw this.#classify(gen, exec, error);
        },
      )
      .finally(() => {
        lease.release();
        gen.executions.delete(seq);
        afterCallIn(gen, this.#retired);
      });
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(abortError(deadline, this.plugin.limits.wallMs));
      if (deadline.aborted) onAbort();
      else deadline.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([applied, aborted]);
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
      exec.bridge = null;
      // the loser of the race settles later (or never); the caller already has its outcome
      applied.catch(() => undefined);
      aborted.catch(() => undefined);
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
    if (gen.timer) clearTimeout(gen.timer);
    gen.timer = null;
    if (gen.reason === null) gen.reason = reason;
    if (!gen.isolate.isDisposed) gen.isolate.dispose();
    if (this.#gen === gen) this.#gen = null;
  }

  async #generation(): Promise<Generation> {
    if (this.#ended === "close") throw sandboxError("AIRLOCK_SANDBOX_CLOSED", "the sandbox was closed");
    if (this.#ended === "unload") throw sandboxError("AIRLOCK_SANDBOX_UNLOADED", "the plugin was unloaded");
    if (this.#gen && !this.#gen.isolate.isDisposed && !isRetired(this.#gen)) return this.#gen;
    const gen: Generation = new Generation(this.plugin.limits.memoryMb, this.#options.maxContexts, () => {
      this.#options.onWarning(
        `${this.plugin.key}: code left running keeps calling ctx after its call ended; isolate reset`,
      );
      this.#disposeGeneration(gen, "cpu");
    });
    this.#gen = gen;
    try {
      gen.bootstrap = await gen.isolate.compileScript(BOOTSTRAP_SOURCE, { filename: "airlock:bootstrap.js" });
      gen.bundle = await this.#compiler.compile(gen.isolate);
    } catch (error) {
      this.#disposeGeneration(gen, "unload");
      if (error instanceof AirlockError) throw error;
      throw sandboxError(
        "AIRLOCK_SANDBOX_BUNDLE_INVALID",
        `the bundle does not compile: ${messageOf(error)}`,
      );
    }
    return gen;
  }

  /** A fresh agent context: bootstrap, then the bundle. Failures leave as AIRLOCK_SANDBOX_* codes. */
  async #createContext(gen: Generation): Promise<AgentContext> {
    let context: ivm.Context | null = null;
    let run: AgentContext["run"] | null = null;
    let stage = "create";
    try {
      context = await gen.isolate.createContext();
      await context.global.set("__airlockBridge", gen.bridgeRef);
      run = (await gen.bootstrap!.run(context, { reference: true })) as AgentContext["run"];
      stage = "bundle";
      await gen.bundle!.run(context, { timeout: this.plugin.limits.cpuMs });
      return { context, run };
    } catch (error) {
      if (!gen.isolate.isDisposed) {
        run?.release();
        context?.release();
      }
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
    return sandboxError("AIRLOCK_SANDBOX_INTERNAL", "the isolate failed unexpectedly", { reason: message });
  }
}
