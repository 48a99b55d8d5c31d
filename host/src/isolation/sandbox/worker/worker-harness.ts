// Tests that play the host to a real sandbox worker process: the same spawn and framed channel the
// WorkerSlot uses, with what the worker sends kept for the test to wait on. `answer`, when given,
// sees each message first, as the host's channel handler would (to answer a ctx call at once).
import type { ChildProcess } from "node:child_process";
import type { Duplex } from "node:stream";
import { Channel } from "./channel.ts";
import type { FromWorker, ToWorker, WorkerEngineOptions } from "./worker-protocol.ts";
import { CHANNEL_FD } from "./worker-protocol.ts";
import { spawnWorker } from "./worker-slot.ts";

export interface PlayedWorker {
  child: ChildProcess;
  channel: Channel<ToWorker, FromWorker>;
  stream: Duplex;
  /** Every message received, in order (results are removed as `result` takes them). */
  received: FromWorker[];
  /** The first message of this type received (waits for it). */
  next(type: FromWorker["type"]): Promise<FromWorker>;
  /** The result of call `id`, removed from `received` (waits for it). */
  result(id: number): Promise<FromWorker>;
  /** Waits until `find` answers something other than undefined (checked as messages arrive). */
  until<T>(find: () => T | undefined): Promise<T>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

export function startWorker(
  answer?: (m: FromWorker, channel: Channel<ToWorker, FromWorker>) => void,
  options: WorkerEngineOptions = {},
): PlayedWorker {
  const child = spawnWorker(options);
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const received: FromWorker[] = [];
  const waiters: Array<() => void> = [];
  const stream = child.stdio[CHANNEL_FD] as Duplex;
  const channel: Channel<ToWorker, FromWorker> = new Channel<ToWorker, FromWorker>(stream, {
    message: (m) => {
      answer?.(m, channel);
      received.push(m);
      for (const w of waiters.splice(0)) w();
    },
    close: () => undefined,
  });
  const waitFor = async <T>(find: () => T | undefined): Promise<T> => {
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    child,
    channel,
    stream,
    received,
    next: (type) => waitFor(() => received.find((m) => m.type === type)),
    result: (id) =>
      waitFor(() => {
        const at = received.findIndex((m) => m.type === "result" && m.id === id);
        return at >= 0 ? received.splice(at, 1)[0]! : undefined;
      }),
    until: waitFor,
    exited,
    stderr: () => stderr,
  };
}

/** The CallContextData of a call by agent `a` in conversation `c` to `toolId`, as JSON. */
export function contextJson(toolId: string): string {
  return JSON.stringify({
    instanceId: "a",
    conversationId: "c",
    toolId,
    conversation: [],
    attachments: [],
    knowledgeLevel: null,
  });
}
