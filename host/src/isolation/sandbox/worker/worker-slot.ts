// One sandbox worker process as the host sees it: starts it on first use (the first load or call,
// not when the sandbox is created: a host that serves no call, `airlock mcp` answering its
// tools/list, spawns no worker), talks to it over one framed channel
// (channel.ts, the child's fd 3; coalesced writes), and restarts it when it dies (reloading the
// plugins it hosted). Calls in flight on a worker that dies fail with
// AIRLOCK_SANDBOX_WORKER_CRASHED; calls on other workers are untouched. A call that is the only
// one in flight on all the sandbox's workers (`inFlight`, shared) is sent `solo`, and after each
// write for it the host reads this worker's answer itself for a moment (#awaitAnswer).
// A child that dies by a signal V8 raises when it aborts (SIGABRT and kin, not a SIGKILL) is
// reported to `onCrash` with the plugin it was running (entry-marker.ts, cross-checked against
// the calls and loads in flight here) before the restart, so the caller can move that plugin out.
// Every other death is reported too (`onDeath`, for the audit): which plugin was running and the
// cause — an abort, an out-of-memory (V8's fatal heap message on the child's stderr), a kill by
// the host's supervisor, a kill from outside (the system's OOM killer), an exit.
// A lowered worker (`lower`: a CPU move, worker-tiers.ts) runs at that OS priority, set on its
// child at once and on every restart.
// Invariants: the child gets `--no-node-snapshot` and no environment of the host's (no secrets, no
// store URL: only the compile cache's directory, sdk/src/compile-cache.ts); a bridge request from
// the child is served only for a call this host sent to this child, with that call's token and
// BridgeDispatch.
import { type ChildProcess, spawn } from "node:child_process";
import { setPriority } from "node:os";
import { createInterface } from "node:readline";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { compileCacheEnv } from "@airlock/sdk/compile-cache";
import { AirlockError } from "@airlock/sdk/errors";
import type { BridgeDispatch } from "../../bridge/types.ts";
import { abortError } from "../deadline.ts";
import type { EngineCall } from "../engine.ts";
import { isSandboxCode, SANDBOX_ERRORS, sandboxError } from "../errors.ts";
import type { SandboxPlugin } from "../types.ts";
import { Channel, SpinGate } from "./channel.ts";
import { DispatchMeter } from "./dispatch-meter.ts";
import { readMarker } from "./entry-marker.ts";
import type { FromWorker, ToWorker, WireError, WorkerEngineOptions } from "./worker-protocol.ts";
import { CHANNEL_FD, toWire } from "./worker-protocol.ts";

const QUICK_EXIT_MS = 5_000;
const MAX_RESTART_DELAY_MS = 5_000;
const ENTRY = fileURLToPath(new URL("./worker-entry.ts", import.meta.url));

/** Signals a child dies by when V8 (or isolated-vm) aborts it rather than someone killing it. */
const ABORT_SIGNALS: ReadonlySet<string> = new Set(["SIGABRT", "SIGTRAP", "SIGILL", "SIGSEGV", "SIGBUS"]);

/** A worker that V8 aborted, or that the supervisor killed, as `onAbort` hears it (before the restart). */
export interface WorkerAbort {
  signal: string;
  /** The plugin key it was running, or null when that cannot be told. */
  culprit: string | null;
  /** `abort`: V8 aborted it; `unresponsive`: it stopped answering pings and the supervisor killed it. */
  cause: "abort" | "unresponsive";
}

/** Why a worker died, as far as the host can tell. */
export type WorkerDeathCause = "abort" | "out_of_memory" | "killed_by_supervisor" | "killed" | "exit";

/** A worker that died while the sandbox was open, as `onDeath` hears it (before its restart). */
export interface WorkerDeath {
  cause: WorkerDeathCause;
  /** The signal it died by, or null when it exited. */
  signal: string | null;
  exitCode: number | null;
  /** The plugin key it was running (entry marker, cross-checked), or null when that cannot be told. */
  culprit: string | null;
  /** Every plugin key with a call or a load in flight on it when it died. */
  running: string[];
}

/** What V8 writes to stderr before it dies of a full heap. */
const OUT_OF_MEMORY = /out of memory|Reached heap limit|Allocation failed/i;

type BridgeMessage = Extract<FromWorker, { type: "bridge" }>;

/**
 * How long the host reads a worker's channel for that worker's next message after writing to it
 * (Channel.readSync), and when: the call is the only one in flight on every worker of this
 * sandbox, and most of this worker's recent answers came within that time (SpinGate). A lone call
 * then needs no wake-up of the host's CPU for its result or its ctx call (on a VM whose idle CPUs
 * halt, that wake-up costs more than the call: docs/sandbox.md). With other calls in flight the
 * event loop is never held; a tool that takes longer closes the gate and is waited for on the
 * event loop.
 */
const SPIN_MS = 0.3;
/** A worker is woken at most this often: a wake already sent keeps it reading (worker-entry.ts). */
const WAKE_EVERY_MS = 0.5;

/** Calls in flight on all the workers of one sandbox (the slots share it). */
export interface CallCount {
  calls: number;
}

export interface WorkerSlotHooks {
  /** A file the child records the plugin it enters in (entry-marker.ts). */
  markerPath?: string;
  /** Called synchronously when the child was aborted, before its plugins are reloaded. */
  onAbort?: (slot: WorkerSlot, abort: WorkerAbort) => void;
  /** Called synchronously for every death while the sandbox is open (aborts included). */
  onDeath?: (slot: WorkerSlot, death: WorkerDeath) => void;
  /** Shared by the sandbox's slots; a slot of its own when absent. */
  inFlight?: CallCount;
}

interface PendingCall {
  pluginKey: string;
  token: string;
  bridge: BridgeDispatch;
  resolve: (json: string) => void;
  reject: (error: AirlockError) => void;
}

export function fromWire(error: WireError): AirlockError {
  const status = isSandboxCode(error.code) ? SANDBOX_ERRORS[error.code].status : 500;
  const options: { status: number; details?: Record<string, unknown> } = { status };
  if (error.details !== undefined) options.details = error.details;
  return new AirlockError(error.code, error.message, options);
}

export class WorkerSlot {
  readonly index: number;
  readonly plugins = new Map<string, SandboxPlugin>();
  restarts = 0;
  /** When the last unanswered ping was sent (ms since epoch), or null. */
  pingSentAt: number | null = null;
  /** When the current child was started, and whether it said it is ready (pings wait for that). */
  startedAt = 0;
  started = false;
  /** Whether a child was ever started (the first load or call starts it). */
  #spawned = false;
  #onStarted: () => void = () => undefined;
  #child: ChildProcess | null = null;
  #channel: Channel<ToWorker, FromWorker> | null = null;
  #ready: Promise<void> = Promise.resolve();
  /** `#ready` has resolved and is still current: a call need not await it. */
  #isReady = false;
  #calls = new Map<number, PendingCall>();
  #requests = new Map<
    number,
    { pluginKey: string; resolve: () => void; reject: (e: AirlockError) => void }
  >();
  #nextId = 1;
  #closing = false;
  /** Set when the supervisor killed the current child ("supervisor"), else null. */
  #killedBy: string | null = null;
  /** The current child wrote V8's out-of-memory message. */
  #outOfMemory = false;
  #quickExits = 0;
  #engineOptions: WorkerEngineOptions;
  #onLog: (line: string) => void;
  #hooks: WorkerSlotHooks;
  readonly #inFlight: CallCount;
  /** The channel's file descriptor here (for readSync), or -1 when it cannot be told. */
  #fd = -1;
  /** When the last write went out with a lone call in flight (performance.now()), else -1. */
  #askedAt = -1;
  /** Whether this worker's next message has been coming within SPIN_MS of such a write. */
  readonly #answers = new SpinGate(SPIN_MS);
  /** The current child's ctx calls, metered (dispatch-meter.ts); one per child. */
  #dispatches: DispatchMeter<BridgeMessage> = this.#newMeter();
  /** The supervisor killed the current child for not answering its pings. */
  #unresponsive = false;
  /** When the last wake was sent (performance.now()). */
  #wokenAt = Number.NEGATIVE_INFINITY;
  /** The OS priority (niceness) its children run at (`lower`), or null: the host's. */
  #priority: number | null = null;

  constructor(
    index: number,
    engineOptions: WorkerEngineOptions,
    onLog: (line: string) => void,
    hooks: WorkerSlotHooks = {},
  ) {
    this.index = index;
    this.#engineOptions = engineOptions;
    this.#onLog = onLog;
    this.#hooks = hooks;
    this.#inFlight = hooks.inFlight ?? { calls: 0 };
  }

  /** A child has been started (it may be starting, running or restarting). */
  get spawned(): boolean {
    return this.#spawned;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get busy(): number {
    return this.#calls.size;
  }

  /** The OS priority (niceness) set on its children, or null when it was never lowered. */
  get priority(): number | null {
    return this.#priority;
  }

  /** Runs this worker's children at OS priority `niceness` (now, and after every restart). */
  lower(niceness: number): void {
    this.#priority = niceness;
    this.#applyPriority(this.#child);
  }

  #applyPriority(child: ChildProcess | null): void {
    if (this.#priority === null || child?.pid === undefined) return;
    try {
      setPriority(child.pid, this.#priority);
    } catch (error) {
      this.#onLog(`[worker ${this.index}] setting priority ${this.#priority} failed: ${String(error)}`);
    }
  }

  #start(): void {
    const child = spawnWorker(this.#engineOptions, this.#hooks.markerPath);
    this.#child = child;
    this.#applyPriority(child);
    const stream = child.stdio[CHANNEL_FD] as Duplex;
    // the socket pair's descriptor (net.Socket keeps it on its handle): read only by readSync
    const fd = (stream as { _handle?: { fd?: unknown } })._handle?.fd;
    this.#fd = typeof fd === "number" && fd >= 0 ? fd : -1;
    this.#askedAt = -1;
    this.#answers.reset();
    this.#dispatches = this.#newMeter();
    this.#unresponsive = false;
    const channel = new Channel<ToWorker, FromWorker>(stream, {
      message: (m) => this.#receive(child, m),
      flushed: () => this.#awaitAnswer(channel),
      // the worker exits when it closes; a channel that failed while it runs is no use: kill it
      close: (error) => {
        if (error && this.#child === child) {
          this.#onLog(`[worker ${this.index}] channel failed: ${error.message}`);
          // not marked as the host's kill: a child that died closes its channel with an error too
          child.kill("SIGKILL");
        }
      },
    });
    this.#channel = channel;
    this.pingSentAt = null;
    this.started = false;
    this.startedAt = Date.now();
    this.#killedBy = null;
    this.#outOfMemory = false;
    const started = new Promise<void>((resolve) => {
      this.#onStarted = resolve;
    });
    for (const stream of [child.stdout, child.stderr]) {
      if (stream)
        createInterface({ input: stream }).on("line", (line) => {
          if (this.#child === child && OUT_OF_MEMORY.test(line)) this.#outOfMemory = true;
          this.#onLog(`[worker ${this.index}] ${line}`);
        });
    }
    child.on("error", (error) => this.#onLog(`[worker ${this.index}] process error: ${error.message}`));
    child.on("exit", (code, signal) => this.#exited(child, code, signal));
    this.#isReady = false;
    const ready = started.then(async () => {
      if (this.#child !== child) return; // it died before it was ready
      const reloads = [...this.plugins.values()].map((p) =>
        this.#request({ type: "load", rid: 0, plugin: p }).catch((error: AirlockError) => {
          this.#onLog(`[worker ${this.index}] reloading ${p.key} failed: ${error.code}`);
        }),
      );
      await Promise.all(reloads);
      if (this.#ready === ready && this.#child === child) this.#isReady = true;
    });
    this.#ready = ready;
  }

  #exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#child !== child) return;
    this.#child = null;
    this.#isReady = false;
    this.#channel?.close();
    this.#channel = null;
    this.#dispatches.clear();
    const abort = this.#abortOf(signal, code);
    const death = this.#closing ? null : this.#deathOf(signal, code, abort);
    const crashed = () =>
      this.#closing
        ? sandboxError("AIRLOCK_SANDBOX_CLOSED", "the sandbox was closed")
        : sandboxError("AIRLOCK_SANDBOX_WORKER_CRASHED", "the sandbox worker hosting this plugin died");
    for (const call of this.#calls.values()) call.reject(crashed());
    this.#calls.clear();
    for (const request of this.#requests.values()) request.reject(crashed());
    this.#requests.clear();
    this.#onStarted();
    if (this.#closing) return;
    if (death !== null) this.#hooks.onDeath?.(this, death);
    if (abort) this.#hooks.onAbort?.(this, abort);
    this.restarts++;
    // a worker that dies soon after starting (a plugin crashing it at load) restarts with backoff
    this.#quickExits = Date.now() - this.startedAt < QUICK_EXIT_MS ? this.#quickExits + 1 : 0;
    const delay = this.#quickExits === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 50 * 2 ** this.#quickExits);
    this.#onLog(`[worker ${this.index}] exited (${signal ?? code}); restarting in ${delay} ms`);
    this.#ready = new Promise<void>((resolve) => setTimeout(resolve, delay)).then(() => {
      if (!this.#closing) this.#start();
    });
  }

  /** The plugin keys with a call or a load in flight here (read before calls are failed). */
  #running(): Set<string> {
    const running = new Set<string>();
    for (const call of this.#calls.values()) running.add(call.pluginKey);
    for (const request of this.#requests.values())
      if (request.pluginKey !== "") running.add(request.pluginKey);
    return running;
  }

  /** The plugin the child was running: the marker's when it had work here, else the only one. */
  #culprit(running: Set<string>): string | null {
    const marked = this.#hooks.markerPath === undefined ? null : readMarker(this.#hooks.markerPath);
    // the marker names the last plugin entered; trust it when that plugin had work here
    if (marked !== null && running.has(marked)) return marked;
    return running.size === 1 ? [...running][0]! : null;
  }

  /**
   * Whether the child was aborted by V8 or killed by the supervisor for not answering, and which
   * plugin it was running (read before its calls are failed).
   */
  #abortOf(signal: NodeJS.Signals | null, code: number | null): WorkerAbort | null {
    const name = signal ?? (code === 134 ? "SIGABRT" : null);
    if (name === null) return null;
    if (ABORT_SIGNALS.has(name))
      return { signal: name, culprit: this.#culprit(this.#running()), cause: "abort" };
    if (name === "SIGKILL" && this.#unresponsive)
      return { signal: name, culprit: this.#culprit(this.#running()), cause: "unresponsive" };
    return null;
  }

  /** How the child died and what it was running (before calls are failed). */
  #deathOf(signal: NodeJS.Signals | null, code: number | null, abort: WorkerAbort | null): WorkerDeath {
    const running = this.#running();
    const cause: WorkerDeathCause = this.#outOfMemory
      ? "out_of_memory"
      : abort?.cause === "abort"
        ? "abort"
        : this.#killedBy !== null
          ? "killed_by_supervisor"
          : signal !== null
            ? "killed"
            : "exit";
    return {
      cause,
      signal: abort?.signal ?? signal,
      exitCode: code,
      culprit: abort !== null ? abort.culprit : this.#culprit(running),
      running: [...running].sort(),
    };
  }

  /**
   * Kills the child: the supervisor's remedy for a worker that did not start in time, or
   * (`unresponsive`) stopped answering its pings — then the plugin it was running is named to
   * `onAbort` like an abort's, and quarantined.
   */
  kill(unresponsive = false): void {
    if (this.#child === null) return;
    this.#killedBy = "supervisor";
    if (unresponsive) this.#unresponsive = true;
    this.#child.kill("SIGKILL");
  }

  /**
   * A call is about to come to this worker (Sandbox.expect): an idle one is told at once, so that
   * it is awake when the call arrives. At most one wake per WAKE_EVERY_MS; nothing while it works.
   */
  wake(): void {
    const channel = this.#channel;
    if (channel === null || channel.closed || this.#calls.size > 0 || !this.#isReady) return;
    const now = performance.now();
    if (now - this.#wokenAt < WAKE_EVERY_MS) return;
    this.#wokenAt = now;
    channel.postPlain({ type: "wake" });
    channel.flush(false);
  }

  ping(n: number): void {
    this.pingSentAt = Date.now();
    this.#send({ type: "ping", n });
  }

  /** This worker's one call is the only one in flight on all the sandbox's workers. */
  get #alone(): boolean {
    return this.#calls.size === 1 && this.#inFlight.calls === 1;
  }

  /** After a write: with one call in flight anywhere, read this worker's answer at once (SPIN_MS). */
  #awaitAnswer(channel: Channel<ToWorker, FromWorker>): void {
    if (!this.#alone || this.#fd < 0) {
      this.#askedAt = -1;
      return;
    }
    this.#askedAt = performance.now();
    if (this.#answers.open) channel.readSync(this.#fd, SPIN_MS);
  }

  #send(message: ToWorker): boolean {
    const channel = this.#channel;
    if (channel === null || channel.closed) return false;
    if (channel.post(message)) return true;
    // an uncloneable value (a capability returned something that is not plain data)
    this.#onLog(`[worker ${this.index}] could not send ${message.type}: not serialisable`);
    return false;
  }

  #request(message: Extract<ToWorker, { rid: number }>): Promise<void> {
    const rid = this.#nextId++;
    const pluginKey = message.type === "load" ? message.plugin.key : "";
    return new Promise<void>((resolve, reject) => {
      this.#requests.set(rid, { pluginKey, resolve, reject });
      if (!this.#send({ ...message, rid })) {
        this.#requests.delete(rid);
        reject(sandboxError("AIRLOCK_SANDBOX_WORKER_CRASHED", "the sandbox worker is not running"));
      }
    });
  }

  /** Waits until the current child is ready with its plugins (again, if it was replaced meanwhile). */
  async #whenReady(): Promise<void> {
    if (!this.#spawned && !this.#closing) {
      this.#spawned = true;
      this.#start();
    }
    let ready: Promise<void>;
    do {
      ready = this.#ready;
      await ready;
    } while (ready !== this.#ready);
  }

  async load(plugin: SandboxPlugin): Promise<void> {
    await this.#whenReady();
    await this.#request({ type: "load", rid: 0, plugin });
    this.plugins.set(plugin.key, plugin);
  }

  async unload(pluginKey: string): Promise<void> {
    this.plugins.delete(pluginKey);
    if (!this.#spawned) return; // nothing was ever loaded in a child
    await this.#whenReady();
    await this.#request({ type: "unload", rid: 0, pluginKey });
  }

  /** Runs a call in the child; `signal` aborting rejects at once and cancels it there. */
  async call(call: EngineCall, token: string, bridge: BridgeDispatch, signal: AbortSignal): Promise<string> {
    if (!this.#isReady) await this.#whenReady();
    const id = this.#nextId++;
    const timeout = () => abortError(signal, 0);
    if (signal.aborted) throw timeout();
    const inFlight = this.#inFlight;
    return new Promise<string>((resolve, reject) => {
      let counted = true;
      inFlight.calls++;
      const uncount = () => {
        if (counted) inFlight.calls--;
        counted = false;
      };
      const onAbort = () => {
        this.#calls.delete(id);
        uncount();
        this.#send({ type: "cancel", id });
        reject(timeout());
      };
      const settle = () => {
        uncount();
        signal.removeEventListener("abort", onAbort);
      };
      this.#calls.set(id, {
        pluginKey: call.pluginKey,
        token,
        bridge,
        resolve: (json) => {
          settle();
          resolve(json);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal.addEventListener("abort", onAbort, { once: true });
      // a call is strings and numbers only: it may share one serialised frame with others
      const channel = this.#channel;
      const solo = inFlight.calls === 1;
      const message: ToWorker = solo ? { type: "call", id, call, solo: true } : { type: "call", id, call };
      if (channel === null || !channel.postPlain(message)) {
        this.#calls.delete(id);
        settle();
        reject(sandboxError("AIRLOCK_SANDBOX_WORKER_CRASHED", "the sandbox worker is not running"));
        return;
      }
      // A lone call leaves once the microtasks queued with it have run, not at the end of the
      // turn: callers resumed together (a group commit settling many) post their calls in the
      // same round and share the write. Reading for its answer waits for the turn's end
      // (#awaitAnswer, if it is still alone then), so that such a burst is never held up.
      if (solo) {
        queueMicrotask(() => channel.flush(false));
        setImmediate(() => this.#awaitAnswer(channel));
      }
    });
  }

  #receive(child: ChildProcess, m: FromWorker): void {
    if (this.#child !== child) return;
    if (this.#askedAt >= 0 && (m.type === "result" || m.type === "bridge")) {
      this.#answers.record(performance.now() - this.#askedAt);
      this.#askedAt = -1;
    }
    switch (m.type) {
      case "ready":
        this.started = true;
        this.#onStarted();
        return;
      case "pong":
        this.pingSentAt = null;
        return;
      case "reply": {
        const request = this.#requests.get(m.rid);
        this.#requests.delete(m.rid);
        if (m.ok) request?.resolve();
        else request?.reject(fromWire(m.error));
        return;
      }
      case "result": {
        const call = this.#calls.get(m.id);
        this.#calls.delete(m.id);
        if (m.ok) call?.resolve(m.json);
        else call?.reject(fromWire(m.error));
        return;
      }
      case "bridge":
        this.#dispatches.submit(m);
        return;
      case "refused": {
        const call = this.#calls.get(m.id);
        call?.bridge.refusedBefore?.(call.token, m.capability, m.method, m.code, m.count);
        return;
      }
    }
  }

  /** The meter of a new child's ctx calls: started by #serveBridge, refused with AIRLOCK_BRIDGE_BUSY. */
  #newMeter(): DispatchMeter<BridgeMessage> {
    return new DispatchMeter<BridgeMessage>(
      (m, done) => this.#serveBridge(m, done),
      (m) => {
        const call = this.#calls.get(m.id);
        call?.bridge.refusedBefore?.(call.token, m.capability, m.method, "AIRLOCK_BRIDGE_BUSY", 1);
        const message = "too many of this call's ctx calls are waiting for the host; await some first";
        this.#send({
          type: "bridge-reply",
          bid: m.bid,
          ok: false,
          error: { code: "AIRLOCK_BRIDGE_BUSY", message },
        });
      },
    );
  }

  #serveBridge(m: BridgeMessage, done: () => void): void {
    const call = this.#calls.get(m.id);
    const reply = (r: { ok: true; value?: unknown } | { ok: false; error: WireError }) => {
      done();
      if (!this.#send({ type: "bridge-reply", bid: m.bid, ...r } as ToWorker) && r.ok) {
        const error = {
          code: "AIRLOCK_BRIDGE_FAILED",
          message: "the capability returned data that cannot be copied",
        };
        this.#send({ type: "bridge-reply", bid: m.bid, ok: false, error });
      }
      // a lone call's worker reads for this answer inside the entry that asked (worker-entry.ts,
      // ask): it leaves now, not at the end of the turn, and its next ask is read for at once
      if (this.#alone) this.#channel?.flush();
    };
    if (!call) {
      reply({ ok: false, error: { code: "AIRLOCK_BRIDGE_TOKEN_INVALID", message: "this call has ended" } });
      return;
    }
    call.bridge(call.token, m.capability, m.method, Array.isArray(m.args) ? m.args : []).then(
      // an absent value reads as undefined on the other side: the reply stays plain (JSON)
      (value) => reply(value === undefined ? { ok: true } : { ok: true, value }),
      (error: unknown) => reply({ ok: false, error: toWire(error) }),
    );
  }

  async close(): Promise<void> {
    this.#closing = true;
    const child = this.#child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    this.#channel?.close();
    // a worker still starting has nothing to finish, and would only notice the closed channel
    // once its modules have loaded
    if (!this.started) child.kill("SIGKILL");
    const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * Starts a worker process: `--no-node-snapshot`, an environment holding only Node's compile cache
 * directory (sdk/src/compile-cache.ts), stdout/stderr piped to the host, and the channel as fd 3 (a
 * socket pair). Exported for the tests that play the host.
 */
export function spawnWorker(engineOptions: WorkerEngineOptions, markerPath = ""): ChildProcess {
  const args = ["--no-node-snapshot", ENTRY, JSON.stringify(engineOptions), markerPath];
  return spawn(process.execPath, args, {
    // nothing of the host's environment; only where Node's compile cache is (a path)
    env: compileCacheEnv(),
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
}
