// Entry point of a sandbox worker process (forked by workers.ts with --no-node-snapshot, a
// scrubbed environment and advanced IPC serialisation). It runs one Engine and relays ctx calls
// to the host over IPC; it holds no secrets, no store handle and no bridge token.
// Invariants: it exits when the host disconnects; every request gets exactly one reply; warnings
// go to stderr (the host captures them), never plugin data.
import { WORKER_BACKSTOP_MS } from "./deadline.ts";
import { createEngine } from "./engine.ts";
import type { FromWorker, ToWorker, WireError, WorkerEngineOptions } from "./worker-protocol.ts";
import { toWire } from "./worker-protocol.ts";

const options = JSON.parse(process.argv[2] ?? "{}") as WorkerEngineOptions;
const engine = createEngine({
  ...options,
  deadlineSlackMs: WORKER_BACKSTOP_MS,
  onWarning: (m) => process.stderr.write(`[sandbox-worker] ${m}\n`),
});
const running = new Map<number, AbortController>();
const bridgeWaits = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
let nextBid = 1;

function send(message: FromWorker): void {
  process.send?.(message);
}

function fromWire(error: WireError): Error {
  return Object.assign(new Error(error.message), { code: error.code });
}

async function handle(message: ToWorker): Promise<void> {
  switch (message.type) {
    case "ping":
      send({ type: "pong", n: message.n });
      return;
    case "load":
    case "unload":
      try {
        if (message.type === "load") await engine.load(message.plugin);
        else await engine.unload(message.pluginKey);
        send({ type: "reply", rid: message.rid, ok: true });
      } catch (error) {
        send({ type: "reply", rid: message.rid, ok: false, error: toWire(error) });
      }
      return;
    case "cancel":
      running.get(message.id)?.abort();
      return;
    case "bridge-reply": {
      const wait = bridgeWaits.get(message.bid);
      bridgeWaits.delete(message.bid);
      if (message.ok) wait?.resolve(message.value);
      else wait?.reject(fromWire(message.error));
      return;
    }
    case "call": {
      const { id, call } = message;
      const controller = new AbortController();
      running.set(id, controller);
      const bridge = (capability: string, method: string, args: unknown[]) =>
        new Promise<unknown>((resolve, reject) => {
          const bid = nextBid++;
          bridgeWaits.set(bid, { resolve, reject });
          send({ type: "bridge", id, bid, capability, method, args });
        });
      try {
        const json = await engine.run(call, bridge, controller.signal);
        send({ type: "result", id, ok: true, json });
      } catch (error) {
        send({ type: "result", id, ok: false, error: toWire(error) });
      } finally {
        running.delete(id);
      }
      return;
    }
  }
}

process.on("message", (message: ToWorker) => {
  handle(message).catch((error: unknown) => {
    process.stderr.write(
      `[sandbox-worker] unexpected: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  });
});
send({ type: "ready" });
process.on("disconnect", () => {
  engine.close().finally(() => process.exit(0));
});
