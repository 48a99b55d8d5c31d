// Entry point of a sandbox worker process (spawned by worker-slot.ts with --no-node-snapshot and
// an empty environment). It runs one Engine, entering plugin code synchronously (this process's
// thread serves nothing else; the isolate `timeout` bounds every entry), and relays ctx calls to
// the host over the framed channel on fd 3; it holds no secrets, no store handle and no token.
// When every call it runs waits for the host's answer to a kind of ctx call the host answers
// quickly, it reads the channel itself for a moment after its write instead of sleeping
// (awaitReplies: the answer then needs no wake-up); so it does after the result of the host's only
// call in flight (`solo`), when the host's next call has mostly come right behind such a result.
// Invariants: it exits when the host's side of the channel goes away (end of stream, or a write
// failing with EPIPE — never an unhandled error); every request gets exactly one reply; warnings
// go to stderr (the host captures them), never plugin data.
import { Socket } from "node:net";
import { Channel, SpinGate } from "./channel.ts";
import { WORKER_BACKSTOP_MS } from "./deadline.ts";
import { createEngine } from "./engine.ts";
import { createEntryMarker } from "./entry-marker.ts";
import type { FromWorker, ToWorker, WireError, WorkerEngineOptions } from "./worker-protocol.ts";
import { CHANNEL_FD, toWire } from "./worker-protocol.ts";

/** An entry this long suggests the next may be long too: flush before it. */
const LONG_ENTRY_MS = 1;
/**
 * How long the worker reads its channel for the host's answer after sending ctx calls, when every
 * call it runs is waiting for one and every one of those kinds of ctx call has been answered
 * within SPIN_FOR_MS on average (channel.ts readSync). A state.get is answered in ≈ 0.19 ms on
 * the 2-core dev VM, a knowledge.search in ≈ 0.4: the first is read for, the second waited for
 * on the event loop (reading for it would hold a CPU the host needs to answer it). The time spent
 * reading is the worker's, not the plugin's cpuMs (as a wake-up's was).
 */
const REPLY_SPIN_MS = 0.3;
const SPIN_FOR_MS = 0.25;
/**
 * How long the worker reads its channel for the host's next call after its last call ended, and
 * when: that call was the host's only one in flight (`solo`) and the host's next call has mostly
 * been coming within that time of the last result (SpinGate). A host sending calls one after
 * another then finds this CPU awake; a host with other calls in flight, or one whose calls come
 * seldom, is waited for on the event loop.
 */
const IDLE_SPIN_MS = 0.5;

const options = JSON.parse(process.argv[2] ?? "{}") as WorkerEngineOptions;
/** Records the plugin about to run, so the host can attribute a V8 abort (entry-marker.ts). */
const mark = createEntryMarker(process.argv[3]);
const engine = createEngine({
  ...options,
  deadlineSlackMs: WORKER_BACKSTOP_MS,
  syncEntry: true,
  // after a long entry (≥ 1 ms), what is ready leaves before plugin code holds this thread again,
  // so an answer never waits behind a run of long calls; short entries keep coalescing
  beforeEntry: (lastEntryMs, pluginKey) => {
    mark(pluginKey);
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
    message: (m) => handle(m),
    close: hostGone,
    flushed: awaitReplies,
  },
);

let spinning = false;
/** A flush made just before an entry (beforeEntry). */
let entering = false;

/** Every call here waits for the host's answer to a ctx call: read the channel for it at once. */
function awaitReplies(): void {
  if (spinning || entering) return;
  if (running.size === 0) {
    // the last call's result is out: the host's next call may be right behind it
    if (idleSince >= 0 && nextCalls.open) spin(IDLE_SPIN_MS);
    return;
  }
  if (bridgeWaits.size === 0 || bridgeWaits.size < running.size) return;
  for (const wait of bridgeWaits.values()) if ((answerMs.get(wait.kind) ?? 0) > SPIN_FOR_MS) return;
  spin(REPLY_SPIN_MS);
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
    wait?.reject(
      Object.assign(new Error("the ctx call could not be sent"), { code: "AIRLOCK_SANDBOX_INTERNAL" }),
    );
  } else process.stderr.write(`[sandbox-worker] could not send ${message.type}\n`);
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
      send({ type: "pong", n: message.n });
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
      if (wait !== undefined) {
        const took = performance.now() - wait.askedAt;
        const known = answerMs.get(wait.kind);
        answerMs.set(wait.kind, known === undefined ? took : known + (took - known) / 8);
      }
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
  const bridge = (capability: string, method: string, args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const bid = nextBid++;
      bridgeWaits.set(bid, { resolve, reject, kind: `${capability}.${method}`, askedAt: performance.now() });
      send({ type: "bridge", id, bid, capability, method, args });
    });
  try {
    // the call's one abort path: a cancel from the host and the backstop deadline both abort it
    const json = await engine.run(call, bridge, controller);
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
