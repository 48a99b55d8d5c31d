// `airlock start` and `airlock serve`: open the host on a data directory, serve the admin API
// and the MCP endpoint on one listener, print the URLs and tokens, run until SIGINT/SIGTERM.
// `start` additionally runs the bootstrap steps (START_BOOTSTRAP): first-run conveniences (a
// local registry, the first-party plugins, the `example` agent with their tools); components add
// their step to that list, in one place (a step's contract: ../start-step.ts). `serve` runs none
// of them. No empty agent is made: a host with no agent says so in the banner (banner.ts).
// Invariants: shutdown closes the server, then runs registered cleanups in reverse, then closes
// the host; a failing step stops startup with its error (nothing keeps listening).
import { createServer } from "node:net";
import { join } from "node:path";
import { hasCode } from "@airlock/sdk/errors";
import type { AirlockHost } from "../../../contracts/host.ts";
import type { AdminServer } from "../../http/server.ts";
import { parseOptions } from "../args.ts";
import { createFirstPartyStep } from "../bootstrap/index.ts";
import { cliError } from "../errors.ts";
import { publishLocation } from "../host-location.ts";
import { applySettings, SETTING_FLAGS, settingsHelp } from "../host-settings.ts";
import { HOST_OPTIONS, hostOptionsFrom, openHost, START_DATA_DIR_HELP, STORE_HELP } from "../open-host.ts";
import { createRequestLog } from "../request-log.ts";
import type { BootstrapStep, RunningContext, StartContext } from "../start-step.ts";
import type { CliCommand, CliIO } from "../types.ts";
import { banner } from "./banner.ts";

export const DEFAULT_PORT = 4480;
/** What `airlock start` runs besides serving. Add a step here; keep `serve` step-free. */
export const START_BOOTSTRAP: BootstrapStep[] = [createFirstPartyStep()];

const OPTIONS = { ...HOST_OPTIONS, ...SETTING_FLAGS } as const;

function help(name: "start" | "serve"): string {
  const what =
    name === "start"
      ? "Starts the host: admin API and MCP over HTTP, plus first-run setup (a local registry, the\nfirst-party plugins, and the agent `example` with their tools)."
      : "Serves an existing data directory (admin API and MCP over HTTP) with no first-run setup.";
  return `Usage: airlock ${name} [options]

${what}
Prints the console and admin API URLs, the operator token, the installed plugins, each agent's
MCP URL and token (the agent serving most tools first), and MCP client configs to paste.
Each failed request prints one line on stderr (status, AIRLOCK_* code, method, path, message).
Runs until interrupted (Ctrl+C / SIGTERM).

Options:
${START_DATA_DIR_HELP}
${STORE_HELP}

Settings: a flag, else its environment variable, else its key in the config file
(\`{"egress": {"allowPrivate": ["127.0.0.1"]}, "limits": {"cpuMs": 500}}\`; docs/api.md "Settings").
A bad value stops startup with AIRLOCK_CLI_CONFIG_INVALID naming it. Each: flag (key, variable).
${settingsHelp()}

Example (a local model server on this machine, reachable by the plugins' ctx.fetch):
  airlock ${name} --data-dir ./airlock-data --port 4480 --allow-private 127.0.0.1
`;
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: string) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

/** Throws AIRLOCK_CLI_PORT_IN_USE when `port` cannot be bound on `hostname` (0 is always free). */
export async function ensurePortFree(hostname: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error) => {
      if (!hasCode(error, "EADDRINUSE")) return reject(error);
      reject(
        cliError(
          "AIRLOCK_CLI_PORT_IN_USE",
          `${hostname}:${port} is already in use (another \`airlock start\`?); stop it or pass --port N (0 = any free port)`,
        ),
      );
    });
    probe.listen(port, hostname, () => probe.close(() => resolve()));
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Starts everything, then waits for `until` (default: SIGINT/SIGTERM), then shuts down. */
export async function runServer(
  name: "start" | "serve",
  args: readonly string[],
  io: CliIO,
  steps: readonly BootstrapStep[],
  until: () => Promise<unknown> = waitForSignal,
): Promise<number> {
  const parsed = parseOptions(args, OPTIONS);
  const hostOptions = hostOptionsFrom(parsed, io, undefined, false);
  const { server: settings } = applySettings(parsed, io, hostOptions);
  // Keys the operator trusts on this host (`airlock install --trust-key` remembers them below it).
  hostOptions.trust = { ...hostOptions.trust, keysDir: join(hostOptions.dataDir as string, "trust") };
  const cleanups: Array<() => Promise<void>> = [];
  const ctx: StartContext = {
    io,
    parsed,
    dataDir: hostOptions.dataDir as string,
    hostOptions,
    notes: [],
    pluginChanges: new Map(),
    onShutdown: (cleanup) => cleanups.push(cleanup),
  };
  const port = settings.port ?? DEFAULT_PORT;
  const hostname = settings.host ?? "127.0.0.1";
  let host: AirlockHost | undefined;
  let server: AdminServer | undefined;
  const requests = createRequestLog(io, settings.logFormat ?? "text", settings.verbose === true);
  // Refuse a busy port before anything starts (workers, a registry child): one line, a hint.
  await ensurePortFree(hostname, port);
  // The admin server's modules (the API, the console, the MCP endpoint) load only here, while the
  // host opens: every other command, `airlock mcp` among them, starts ≈ 60 ms sooner without them.
  const adminModules = import("../../http/server.ts");
  adminModules.catch(() => undefined); // awaited below; a failure surfaces there
  try {
    for (const step of steps) await step.beforeHost?.(ctx);
    host = await openHost(ctx.hostOptions);
    const { startAdminServer } = await adminModules;
    server = await startAdminServer(host, {
      hostname,
      port,
      extraAllowedHosts: settings.allowedHosts ?? [],
      onFailure: requests.onFailure,
      log: requests.log,
      ...(settings.drainMs === undefined ? {} : { drainMs: settings.drainMs }),
    });
    if (!["127.0.0.1", "localhost", "::1"].includes(hostname)) {
      io.stderr(
        `airlock ${name}: listening on ${hostname}, beyond this machine: plain HTTP, put a TLS proxy in front ` +
          "(and name it with --allowed-host)\n",
      );
    }
    const running: RunningContext = { ...ctx, host, server };
    for (const step of steps) await step.afterHost?.(running);
    // Tell the other `airlock` commands where this host is (host-location.ts).
    cleanups.push(
      await publishLocation(io.env, {
        dataDir: ctx.dataDir,
        adminUrl: server.url,
        registryUrl: ctx.hostOptions.registryUrl ?? null,
        pid: process.pid,
        version: host.version,
        startedAt: new Date().toISOString(),
      }),
    );
    // Listen for the stop signal before the banner tells anyone we are up.
    const stopped = until();
    io.stdout(await banner(running));
    await stopped;
    io.stderr(`airlock ${name}: shutting down\n`);
    return 0;
  } finally {
    // Every stage runs even when an earlier one fails; the first failure is reported.
    const failures: unknown[] = [];
    const attempt = async (stage: () => Promise<void> | undefined) => {
      try {
        await stage();
      } catch (error) {
        failures.push(error);
      }
    };
    await attempt(() => server?.close());
    for (const cleanup of cleanups.reverse()) await attempt(cleanup);
    await attempt(() => host?.close());
    for (const failure of failures) io.stderr(`airlock ${name}: shutdown: ${describe(failure)}\n`);
  }
}

export const startCommand: CliCommand = {
  path: ["start"],
  summary: "Start the host (admin API + MCP over HTTP) with first-run setup",
  help: help("start"),
  run: (args, io) => runServer("start", args, io, START_BOOTSTRAP),
};

export const serveCommand: CliCommand = {
  path: ["serve"],
  summary: "Serve an existing data directory (admin API + MCP over HTTP)",
  help: help("serve"),
  run: (args, io) => runServer("serve", args, io, []),
};
