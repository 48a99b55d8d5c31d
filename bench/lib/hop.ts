// One process hop, as row 0's floor: a child process (bench/fixtures/hop-child.ts) that echoes
// what it is sent over the same framed socket channel the sandbox workers use. `call` sends one
// message and resolves with its echo; nothing else (no isolate, no pipeline, no audit), so a bare
// server that answers through it costs what a host with one sandbox hop cannot go under.
import { type ChildProcess, spawn } from "node:child_process";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { Channel } from "../../host/src/isolation/sandbox/worker/channel.ts";

const CHILD = fileURLToPath(new URL("../fixtures/hop-child.ts", import.meta.url));

export interface Hop {
  call(text: string): Promise<string>;
  close(): void;
}

export function startHop(): Hop {
  const child: ChildProcess = spawn(process.execPath, [...process.execArgv, CHILD], {
    stdio: ["ignore", "inherit", "inherit", "pipe"],
  });
  const waiting = new Map<number, (text: string) => void>();
  let next = 1;
  const channel = new Channel<{ id: number; text: string }, { id: number; text: string }>(
    child.stdio[3] as Duplex,
    {
      message: ({ id, text }) => {
        waiting.get(id)?.(text);
        waiting.delete(id);
      },
      close: () => undefined,
    },
  );
  return {
    call(text) {
      const id = next++;
      return new Promise<string>((resolve) => {
        waiting.set(id, resolve);
        channel.postPlain({ id, text });
      });
    },
    close() {
      channel.close();
      child.kill();
    },
  };
}
