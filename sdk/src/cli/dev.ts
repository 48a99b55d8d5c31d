// `airlock-plugin dev [dir]`: builds the plugin and serves it over MCP with its bare tool names,
// in the real sandbox with local grants, so an author can try it in any MCP client.
// Layering: the host half (`@airlock/host/surfaces/mcp/dev.ts`, a peer dependency of this command) is
// loaded with a dynamic import, never statically; without it the command fails with
// AIRLOCK_SDK_DEV_HOST_MISSING. In stdio mode stdout carries MCP only; status goes to stderr.
// `--watch` rebuilds on save and reloads into the running host (dev-watch.ts).
import { fileURLToPath } from "node:url";
import { AirlockError, defineErrorCodes } from "../errors.ts";
import { packPluginForTest } from "../testing/pack.ts";
import { parse, pluginDirOf, reportError, stringOption } from "./args.ts";
import { watchPlugin } from "./dev-watch.ts";
import { EXIT, type PluginCliCommand } from "./types.ts";

export const DEV_ERRORS = defineErrorCodes({
  AIRLOCK_SDK_DEV_HOST_MISSING: {
    status: 500,
    description: "`airlock-plugin dev` needs the Airlock host (@airlock/host) installed beside the SDK.",
  },
});

/** This SDK's `airlock-plugin` bin, absolute (the help's client entry runs it with this Node). */
const DEV_BIN = fileURLToPath(new URL("../../bin/airlock-plugin.ts", import.meta.url));
const HOST_DEV = "@airlock/host/surfaces/mcp/dev.ts";
const LEVELS = ["none", "read", "write", "manage"] as const;

interface HostDevModule {
  servePluginDev(options: {
    tarball: Uint8Array;
    source: string;
    transport: { kind: "stdio" } | { kind: "http"; port: number };
    secrets?: Record<string, string>;
    knowledgeLevel?: (typeof LEVELS)[number];
    allowPrivate?: string[];
    log: (line: string) => void;
    watch?: (reload: (tarball: Uint8Array) => Promise<string>) => () => void;
  }): Promise<unknown>;
}

async function loadHost(): Promise<HostDevModule> {
  try {
    return (await import(HOST_DEV)) as HostDevModule;
  } catch (cause) {
    throw new AirlockError(
      "AIRLOCK_SDK_DEV_HOST_MISSING",
      `could not load ${HOST_DEV}: install @airlock/host`,
      {
        status: DEV_ERRORS.AIRLOCK_SDK_DEV_HOST_MISSING.status,
        cause,
      },
    );
  }
}

function usageError(message: string): AirlockError {
  return new AirlockError("AIRLOCK_SDK_USAGE", message, { status: 400 });
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : [];
}

function secretsOf(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw usageError(`--secret takes key=value (got ${JSON.stringify(pair.slice(0, 40))})`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

export const devCommand: PluginCliCommand = {
  name: "dev",
  summary: "serve the plugin over MCP (bare tool names, real sandbox, local grants)",
  // A getter: the example entry names this Node, this SDK's bin and the current folder by absolute
  // path, so it runs when pasted into a client (which starts servers in a folder of its own).
  get help() {
    return `Usage: airlock-plugin dev [dir] [--watch] [--http <port>] [--secret key=value]... [--knowledge <level>]

Builds the plugin at [dir] (default: the current directory) and serves it over MCP, its
tools named as in the code (no namespace prefix), running in the real isolated-vm sandbox
of a throwaway host — a worker process with the limits, grants and egress checks of
production: every tool enabled, approvals granted, the secrets you pass set, the knowledge
level you choose. Connect any MCP client to it; each call is printed on stderr. Ctrl+C (or
the client disconnecting, for stdio) stops it and deletes the throwaway host.

Options:
  --watch                rebuild on every save and reload into the running host: the client
                         keeps its connection and its next call runs the new code;
                         rebuild N is served as <version>+dev.N; a failed build is printed
                         and the last good version stays served
  --http <port>          serve MCP over streamable HTTP on 127.0.0.1:<port> (0 = any free
                         port) and print the URL and token, instead of stdio (default: stdio)
  --secret key=value     a secret value for the tools (repeatable)
  --knowledge <level>    none, read, write or manage (default: write)
  --allow-private <host> let ctx.fetch reach this loopback/private host, e.g. a local mock
                         server (repeatable; default: none)
  -h, --help             show this help

Example (an MCP client's server entry for the plugin in this folder; paste as printed):
  ${JSON.stringify({ command: process.execPath, args: [DEV_BIN, "dev", process.cwd()] })}
(append "--secret", "key=value" to args for each secret your tools declare)
`;
  },
  async run(args, io) {
    try {
      const parsed = parse(
        args,
        {
          http: { type: "string" },
          secret: { type: "string", multiple: true },
          knowledge: { type: "string" },
          "allow-private": { type: "string", multiple: true },
          watch: { type: "boolean" },
        },
        1,
      );
      if (parsed.help) {
        io.stdout(this.help);
        return EXIT.OK;
      }
      const http = stringOption(parsed, "http");
      if (http !== undefined && (!/^\d+$/.test(http) || Number(http) > 65535)) {
        throw usageError(`--http takes a port number 0–65535 (got ${JSON.stringify(http)})`);
      }
      const knowledge = stringOption(parsed, "knowledge") ?? "write";
      if (!(LEVELS as readonly string[]).includes(knowledge))
        throw usageError(`--knowledge is one of ${LEVELS.join(", ")}`);
      const values = parsed.values as Record<string, unknown>;
      const secrets = secretsOf(list(values.secret));
      const allowPrivate = list(values["allow-private"]);
      const host = await loadHost();
      const dir = pluginDirOf(parsed, io);
      const { tarball, source } = await packPluginForTest(dir);
      const log = (line: string) => io.stderr(`airlock-plugin dev: ${line}\n`);
      await host.servePluginDev({
        tarball,
        source,
        transport: http === undefined ? { kind: "stdio" } : { kind: "http", port: Number(http) },
        secrets,
        knowledgeLevel: knowledge as (typeof LEVELS)[number],
        ...(allowPrivate.length === 0 ? {} : { allowPrivate }),
        log,
        ...(values.watch === true
          ? {
              watch: (reload: (tarball: Uint8Array) => Promise<string>) =>
                watchPlugin({ dir, reload: (pkg) => reload(pkg.tarball), log }),
            }
          : {}),
      });
      return EXIT.OK;
    } catch (err) {
      return reportError(err, io);
    }
  },
};
