// A remote MCP server the host starts itself, spoken to over the child process's stdio: only for
// a command the operator named with --allow-command at install (servers.ts checks it). The child
// is NOT sandboxed: it runs with the host's OS user. What the host does limit: its environment
// (only the SDK's default inherited variables, HOME, LOGNAME, PATH, SHELL, TERM and USER — no
// AIRLOCK_* value, no secret, nothing else of the host's environment), its working directory (a
// fresh empty temporary directory, removed when the session ends), its stderr (discarded), the
// size of one message it may send (the read buffer's cap) and, like every remote call, the wall
// time of each operation.
// Invariants: one process per session; the session's close() ends the process (stdin closed,
// then SIGTERM, then SIGKILL, as the SDK's transport does) and removes its directory; a command
// that cannot start is AIRLOCK_REMOTE_UNREACHABLE naming the command only.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { remoteError } from "./errors.ts";
import type { ChannelFactory } from "./session.ts";

export interface StdioCommand {
  command: string;
  args: string[];
}

/** The cap on one message from the process (a listing's cap; a call's result is capped after). */
export const STDIO_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export function stdioChannel(spec: StdioCommand): ChannelFactory {
  return ({ sdk }) => {
    let failure: (Error & { code: string }) | undefined;
    let exited = false;
    const cwd = mkdtempSync(join(tmpdir(), "airlock-mcp-stdio-"));
    class ScrubbedStdio extends sdk.StdioClientTransport {
      override async start(): Promise<void> {
        try {
          await super.start();
        } catch (error) {
          failure = remoteError(
            "AIRLOCK_REMOTE_UNREACHABLE",
            `the command ${JSON.stringify(spec.command.slice(0, 200))} of this remote MCP server could not be started`,
            { command: spec.command.slice(0, 200) },
            error,
          );
          throw failure;
        }
      }
    }
    const transport = new ScrubbedStdio({
      command: spec.command,
      args: [...spec.args],
      env: {},
      stderr: "ignore",
      cwd,
      maxBufferSize: STDIO_MAX_MESSAGE_BYTES,
    });
    const onExit = () => {
      exited = true;
    };
    return {
      transport: new Proxy(transport, {
        set(target, key, value) {
          // The client installs its own onclose; the channel still learns that the process ended.
          if (key === "onclose") {
            const theirs = value as (() => void) | undefined;
            target.onclose = () => {
              onExit();
              theirs?.();
            };
            return true;
          }
          return Reflect.set(target, key, value);
        },
      }),
      failure: () => failure,
      startOperation: () => undefined,
      sessionGone: () => false,
      alive: () => !exited && failure === undefined,
      async close() {
        await transport.close().catch((closing: unknown) => void closing); // ending it either way
        rmSync(cwd, { recursive: true, force: true });
      },
    };
  };
}
