// Entry point of a sandbox worker process (spawned by worker-slot.ts with --no-node-snapshot and
// an empty environment). It runs one Engine, entering plugin code synchronously (this process's
// thread serves nothing else; the isolate `timeout` bounds every entry), and relays ctx calls to
// the host over the framed channel on fd 3; it holds no secrets, no store handle and no token.
// The one call running here asks a kind of ctx call the host answers quickly from inside its
// entry, and reads the channel there for the answer, which goes back into the isolate as send()'s
// result (ask: no return to the event loop, no second entry); what else arrives meanwhile is
// handled, in order, once the entry is over. When every call it runs waits for such an answer on
// the event loop, it reads the channel itself for a moment after its write instead of sleeping
// (awaitReplies: the answer then needs no wake-up); so it does after the result of the host's only
// call in flight (`solo`), when the host's next call has mostly come right behind such a result.
// Invariants: it exits when the host's side of the channel goes away (end of stream, or a write
// failing with EPIPE — never an unhandled error); every request gets exactly one reply; warnings
// go to stderr (the host captures them), never plugin data.
import { Socket } from "node:net";
import { WORKER_BACKSTOP_MS } from "../deadline.ts";
import { createEngine, type EngineBridge } from "../engine.ts";
import type { PromptAnswer } from "../generation.ts";
import { Channel, SpinGate } from "./channel.ts";
import { createEntryMarker } from "./entry-marker.ts";
import type { FromWorker, ToWorker, WireError, WorkerEngineOptions } from "./worker-protocol.ts";
import { CHANNEL_FD, toWire } from "./worker-protocol.ts";

/** An entry this long suggests the next may be long too: flush before it. */
const LONG_ENTRY_MS = 1;
const { replyWaitMs, promptEntryMs, wakeSpinMs, ...engineOptions } = JSON.parse(
  process.argv[2] ?? "{}",
) as WorkerEngineOptions;
/**
 * How long the worker reads its channel for the host's answer after sending ctx calls
 * (WorkerEngineOptions.replyWaitMs, default 0.3 ms), when every call it runs is waiting for one
 * (or inside the entry that asked: ask) and every one of those kinds of ctx call has been
 * answered within SPIN_FOR_MS (5/6 of it) on average (channel.ts readSync). A state.get is
 * answered in ≈ 0.19 ms on the 2-core dev VM, a knowledge.search in ≈ 0.4: the first is read
 * for, the second waited for on the event loop (reading for it would hold a CPU the host needs to
 * answer it). The time spent reading is the worker's, not the plugin's cpuMs (isolated-vm does
 * not count a call out of the isolate as the isolate's CPU).
 */
const REPLY_SPIN_MS = replyWaitMs ?? 0.3;
const SPIN_FOR_MS = (REPLY_SPIN_MS * 5) / 6;
/**
 * How long the worker reads its channel for the host's next call after its last call ended, and
 * when: that call was the host's only one in flight (`solo`) and the host's next call has mostly
 * been coming within that time of the last result (SpinGate). A host sending calls one after
 * another then finds this CPU awake; a host with other calls in flight, or one whose calls come
 * seldom, is waited for on the event loop.
 */
const IDLE_SPIN_MS = 0.5;
/**
 * How long one entry may go on taking its ctx answers within itself (ask): a ctx call made later
 * in it leaves the entry and is answered through settle, so what the host sent meanwhile (a
 * cancel, another call), which waits while the entry runs, waits at most this plus REPLY_SPIN_MS.
 * WorkerEngineOptions.promptEntryMs, default 5 ms (tests that play a slow host raise it).
 */
const PROMPT_ENTRY_MS = promptEntryMs ?? 5;
/**
 * How long an idle worker reads its channel after a `wake` (the host knows a call for it is
 * coming while it still authenticates and parses the request): the call then finds this CPU
 * awake, and the wake-up, the largest cost of a round trip on a VM whose idle CPUs halt, overlaps
 * the host's work instead of following it. WorkerEngineOptions.wakeSpinMs, default 0 (off): on
 * a loaded machine the woken worker shared the host's CPU and delayed it (docs/sandbox.md).
 */
const WAKE_SPIN_MS = wakeSpinMs ?? 0;

/** Records the plugin about to run, so the host can attribute a V8 abort (entry-marker.ts). */
const mark = createEntryMarker(process.argv[3]);
const engine = createEngine({
  ...engineOptions,
  deadlineSlackMs: WORKER_BACKSTOP_MS,
  syncEntry: true,
  // after a long entry (≥ 1 ms), what is ready leaves before plugin code holds this thread again,
  // so an answer never waits behind a run of long calls; short entries keep coalescing
  beforeEntry: (lastEntryMs, pluginKey) => {
    mark(pluginKey);
    entryAt = performance.now();
    if (lastEntryMs < LONG_ENTRY_MS) return;
    // no reading for answers here: a call is about to enter, and nothing may run before it does
    entering = true;
    try {
      channel.flush();
    } finally {
      entering = false;
    }
  },
  onWarning: (m) => process.stderr.write(`[sandbox-worker] ${m}\n`),
});
const running = new Map<number, AbortController>();
interface BridgeWait {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** `capability.method`, and when it was asked (performance.now()). */
  kind: string;
  askedAt: number;
}
const bridgeWaits = new Map<number, BridgeWait>();
/**
 * How long the host has been taking to answer each kind of ctx call (ms, moving average). The
 * kinds are the bootstrap's own (makeCtx names each capability and method): a bounded set.
 */
const answerMs = new Map<string, number>();
/**
 * Whether each kind of ctx call has mostly been answered within REPLY_SPIN_MS (ask waits for it
 * inside its entry while it has: a share of answers, so one late answer does not close it); a
 * kind not yet answered is waited for. While closed, one ask in PROBE_EVERY still waits (mayProbe),
 * so a host that got faster is noticed (answers that come through the event loop carry its wake-up).
 */
const inEntry = new Map<string, SpinGate>();
const PROBE_EVERY = 8;
let probes = 0;
let nextBid = 1;
let exiting = false;
/** When the last call ended, if it was the host's only one (performance.now()), else -1. */
let idleSince = -1;
/** Whether the host's next call has been coming within IDLE_SPIN_MS of such an end. */
const nextCalls = new SpinGate(IDLE_SPIN_MS);

/** The host is gone (its side of the channel closed, or stderr broke): stop everything. */
function hostGone(): void {
  if (exiting) return;
  exiting = true;
  engine.close().finally(() => process.exit(0));
}

// stdout/stderr are pipes to the host: writing to them after it died fails with EPIPE
process.stdout.on("error", hostGone);
process.stderr.on("error", hostGone);

const channel = new Channel<FromWorker, ToWorker>(
  new Socket({ fd: CHANNEL_FD, readable: true, writable: true }),
  {
    message: (m) => receive(m),
    close: hostGone,
    flushed: awaitReplies,
  },
);

let spinning = false;
/** A flush made just before an entry (beforeEntry). */
let entering = false;
/** When the current (or last) entry into plugin code began (performance.now()). */
let entryAt = 0;
/** The ctx call whose answer an entry is reading the channel for now (ask), else 0. */
let waitingFor = 0;
/** That answer, once read. */
let prompt: Extract<ToWorker, { type: "bridge-reply" }> | undefined;
/**
 * What came while an entry read for its answer, handled in order once it is over (drain): a
 * cancel, a call or a load must not run inside the entry of another call.
 */
const deferred: ToWorker[] = [];

/**
 * The supervisor's ping is answered the moment it is read, and the pong written at once: never
 * after the ctx answers or calls read with it, nor behind an entry that deferred them.
 */
function pong(n: number): void {
  channel.postPlain({ type: "pong", n });
  if (!entering) channel.flush(false);
}

/** Every message from the host comes here first (see `deferred`); a ping is answered at once. */
function receive(message: ToWorker): void {
  if (message.type === "ping") {
    pong(message.n);
    return;
  }
  if (waitingFor !== 0 && message.type === "bridge-reply" && message.bid === waitingFor) {
    prompt = message;
    waitingFor = 0;
    return;
  }
  if (waitingFor === 0 && deferred.length === 0) {
    handle(message);
    return;
  }
  if (deferred.push(message) === 1) queueMicrotask(drain);
}

function drain(): void {
  try {
    while (deferred.length > 0) handle(deferred.shift()!);
  } finally {
    if (deferred.length > 0) queueMicrotask(drain);
  }
}

/** Every call here waits for the host's answer to a ctx call: read the channel for it at once. */
function awaitReplies(): void {
  if (spinning || entering || deferred.length > 0) return;
  if (running.size === 0) {
    // the last call's result is out: the host's next call may be right behind it
    if (idleSince >= 0 && nextCalls.open) spin(IDLE_SPIN_MS);
    return;
  }
  if (bridgeWaits.size === 0 || bridgeWaits.size < running.size) return;
  for (const wait of bridgeWaits.values()) if ((answerMs.get(wait.kind) ?? 0) > SPIN_FOR_MS) return;
  spin(REPLY_SPIN_MS);
}

/** After a wake: read the channel until a call comes or WAKE_SPIN_MS passes (idle workers only). */
function awaitCall(): void {
  if (WAKE_SPIN_MS <= 0 || spinning || entering || running.size > 0 || deferred.length > 0) return;
  const until = performance.now() + WAKE_SPIN_MS;
  spinning = true;
  try {
    // a read may bring something else first (another wake, a ping): go on until the call
    while (running.size === 0 && deferred.length === 0) {
      const left = until - performance.now();
      if (left <= 0 || !channel.readSync(CHANNEL_FD, left)) break;
    }
  } finally {
    spinning = false;
  }
}

function spin(budgetMs: number): void {
  spinning = true;
  try {
    channel.readSync(CHANNEL_FD, budgetMs);
  } finally {
    spinning = false;
  }
}

function send(message: FromWorker): void {
  if (channel.post(message) || channel.closed) return;
  // not serialisable (a result is a string and errors are plain data, so this is a bug): say so
  if (message.type === "bridge") {
    const wait = bridgeWaits.get(message.bid);
    bridgeWaits.delete(message.bid);
    wait?.reject(unsendable());
  } else process.stderr.write(`[sandbox-worker] could not send ${message.type}\n`);
}

/** A ctx call that could not be written (not serialisable: a bug, since its args are copies). */
function unsendable(): Error {
  return Object.assign(new Error("the ctx call could not be sent"), { code: "AIRLOCK_SANDBOX_INTERNAL" });
}

function fromWire(error: WireError): Error {
  return Object.assign(new Error(error.message), { code: error.code });
}

function report(error: unknown): void {
  process.stderr.write(
    `[sandbox-worker] unexpected: ${error instanceof Error ? error.message : String(error)}\n`,
  );
}

function handle(message: ToWorker): void {
  switch (message.type) {
    case "ping":
      pong(message.n);
      return;
    case "wake":
      awaitCall();
      return;
    case "load":
      mark(message.plugin.key);
      loadOrUnload(message);
      return;
    case "unload":
      loadOrUnload(message);
      return;
    case "cancel":
      running.get(message.id)?.abort();
      return;
    case "bridge-reply": {
      const wait = bridgeWaits.get(message.bid);
      bridgeWaits.delete(message.bid);
      if (wait !== undefined) answered(wait.kind, wait.askedAt);
      if (message.ok) wait?.resolve(message.value);
      else wait?.reject(fromWire(message.error));
      return;
    }
    case "call":
      if (idleSince >= 0) {
        nextCalls.record(performance.now() - idleSince);
        idleSince = -1;
      }
      runCall(message.id, message.call, message.solo === true).catch(report);
      return;
  }
}

/**
 * Whether a closed kind may still be tried now and then: not one whose answers take more than
 * twice the budget on average (a fetch, a code-mode inner call), which a try would only delay.
 */
function mayProbe(kind: string): boolean {
  return (answerMs.get(kind) ?? 0) <= 2 * REPLY_SPIN_MS;
}

/** One more answer to a kind of ctx call, asked at `askedAt`: its moving average. */
function answered(kind: string, askedAt: number): void {
  const took = performance.now() - askedAt;
  const known = answerMs.get(kind);
  answerMs.set(kind, known === undefined ? took : known + (took - known) / 8);
  let gate = inEntry.get(kind);
  if (gate === undefined) {
    gate = new SpinGate(REPLY_SPIN_MS);
    inEntry.set(kind, gate);
  }
  gate.record(took);
}

/** The answer to ctx call `bid`, settled when it comes (handle). */
function later(bid: number, kind: string, askedAt: number): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    bridgeWaits.set(bid, { resolve, reject, kind, askedAt });
  });
}

/** Asks the host a ctx call; its answer settles the promise when it comes (handle). */
function bridge(id: number, capability: string, method: string, args: unknown[]): Promise<unknown> {
  const bid = nextBid++;
  const answer = later(bid, `${capability}.${method}`, performance.now());
  send({ type: "bridge", id, bid, capability, method, args });
  return answer;
}

/**
 * Asks the host a ctx call from inside the entry that made it, and reads the channel for the
 * answer there, up to REPLY_SPIN_MS: when it comes, it goes back into the isolate as send()'s
 * result, with no return to the event loop and no second entry (settle). It does so only for the
 * one call running here, for a kind the host has mostly been answering within REPLY_SPIN_MS
 * (inEntry), and for the first PROMPT_ENTRY_MS of an entry; otherwise, or when the answer is
 * late, the call is answered as any other (bridge). What the wait reads besides its answer is
 * deferred (receive).
 */
function ask(
  id: number,
  capability: string,
  method: string,
  args: unknown[],
): PromptAnswer | Promise<unknown> {
  const kind = `${capability}.${method}`;
  const askedAt = performance.now();
  const gate = inEntry.get(kind);
  if (
    running.size !== 1 ||
    waitingFor !== 0 ||
    deferred.length > 0 ||
    channel.closed ||
    askedAt - entryAt > PROMPT_ENTRY_MS ||
    (gate !== undefined && !gate.open && (!mayProbe(kind) || ++probes % PROBE_EVERY !== 0))
  )
    return bridge(id, capability, method, args);
  const bid = nextBid++;
  if (!channel.post({ type: "bridge", id, bid, capability, method, args }))
    return Promise.reject(unsendable());
  channel.flush(false);
  waitingFor = bid;
  try {
    const until = askedAt + REPLY_SPIN_MS;
    let left = REPLY_SPIN_MS;
    // something else from the host (a call, a cancel) ends the wait: the entry lets go for it
    while (prompt === undefined && deferred.length === 0 && left > 0 && channel.readSync(CHANNEL_FD, left))
      left = until - performance.now();
  } finally {
    waitingFor = 0;
  }
  const reply = prompt;
  prompt = undefined;
  if (reply === undefined) return later(bid, kind, askedAt);
  answered(kind, askedAt);
  return reply.ok ? [true, reply.value] : [false, reply.error.code, reply.error.message];
}

function loadOrUnload(message: Extract<ToWorker, { type: "load" | "unload" }>): void {
  (message.type === "load" ? engine.load(message.plugin) : engine.unload(message.pluginKey)).then(
    () => send({ type: "reply", rid: message.rid, ok: true }),
    (error: unknown) => send({ type: "reply", rid: message.rid, ok: false, error: toWire(error) }),
  );
}

async function runCall(
  id: number,
  call: Extract<ToWorker, { type: "call" }>["call"],
  solo: boolean,
): Promise<void> {
  const controller = new AbortController();
  running.set(id, controller);
  mark(call.pluginKey); // creating the agent's context runs the bundle before the first entry
  const calls: EngineBridge = (capability, method, args) => bridge(id, capability, method, args);
  calls.ask = (capability, method, args) => ask(id, capability, method, args);
  calls.refused = (capability, method, code, count) =>
    channel.postPlain({ type: "refused", id, capability, method, code, count });
  try {
    // the call's one abort path: a cancel from the host and the backstop deadline both abort it
    const json = await engine.run(call, calls, controller);
    // a result is a string: results of one turn share one serialised frame
    channel.postPlain({ type: "result", id, ok: true, json });
  } catch (error) {
    send({ type: "result", id, ok: false, error: toWire(error) });
  } finally {
    running.delete(id);
    idleSince = solo && running.size === 0 ? performance.now() : -1;
  }
  // the host's only call: its result has nothing to share a write with, so it leaves now
  if (idleSince >= 0) channel.flush();
}

send({ type: "ready" });
