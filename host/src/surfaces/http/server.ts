// startAdminServer(host, options): the admin API and the MCP endpoint on one HTTP listener
// (@hono/node-server). Resolves once listening, with the bound URL (port 0 picks a free one).
// Invariants: DNS-rebinding protection is on by default (allowed Host/Origin = the address it
// listens on, plus `localhost`/`127.0.0.1`/`[::1]` aliases for a loopback bind, plus any
// `extraAllowedHosts`); close() drains (drain.ts: stops accepting, /readyz answers 503,
// requests in flight finish within `drainMs`; the calls still running then are ended by the
// host with AIRLOCK_HOST_CLOSED and answered), then ends MCP sessions and cuts what is left
// (event streams). MCP sessions end only after the drain: a session's call in flight is
// answered, never ended with its session. It does not close the host (the caller owns it), but
// stops its calls (host.stopCalls) when the grace is over.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname as machineName } from "node:os";
import { createAdaptorServer } from "@hono/node-server";
import type { AirlockHost } from "../../contracts/host.ts";
import { McpHttpEndpoint, type McpHttpStats } from "../mcp/http.ts";
import type { McpServerOptions } from "../mcp/server.ts";
import { type AdminApiOptions, createAdminApi } from "./app.ts";
import { createInFlight } from "./drain.ts";

export interface AdminServerOptions extends Omit<AdminApiOptions, "allowedHosts" | "mcp"> {
  /** Default 127.0.0.1. */
  hostname?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** More `host:port` values to accept in Host/Origin (a reverse proxy's name). */
  extraAllowedHosts?: string[];
  /** Turn DNS-rebinding protection off (not recommended); default false. */
  disableHostCheck?: boolean;
  mcp?: false | McpServerOptions;
  /** How long close() lets requests in flight finish before cutting them (ms); default 10 000. */
  drainMs?: number;
}

export interface AdminServer {
  /** `http://host:port` */
  readonly url: string;
  readonly port: number;
  /** The MCP endpoint of an agent. */
  mcpUrl(agent: string): string;
  /** How the MCP endpoint answered so far (undefined when it is not served). */
  mcpStats(): McpHttpStats | undefined;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const WILDCARD = new Set(["0.0.0.0", "::", "[::]"]);

export function allowedHostsFor(hostname: string, port: number, extra: readonly string[] = []): string[] {
  const bracketed = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
  const loopback = ["127.0.0.1", "localhost", "[::1]"];
  const names = LOOPBACK.has(hostname)
    ? loopback
    : WILDCARD.has(hostname)
      ? [...loopback, machineName().toLowerCase()]
      : [bracketed];
  return [...names.map((n) => `${n}:${port}`), ...extra];
}

export async function startAdminServer(
  host: AirlockHost,
  options: AdminServerOptions = {},
): Promise<AdminServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  let allowed: string[] | undefined;
  const {
    hostname: _h,
    port: _p,
    extraAllowedHosts,
    disableHostCheck,
    mcp,
    drainMs,
    ...apiOptions
  } = options;
  const endpoint = mcp === false ? undefined : new McpHttpEndpoint(host, mcp ?? {});
  const inFlight = createInFlight();
  const app = createAdminApi(host, {
    ...apiOptions,
    accepting: inFlight.accepting,
    allowedHosts: () => (disableHostCheck === true ? undefined : allowed),
    mcp: mcp === false ? false : { ...(mcp ?? {}), ...(endpoint === undefined ? {} : { endpoint }) },
  });
  const server = createAdaptorServer({ fetch: app.fetch, hostname }) as Server;
  inFlight.track(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  // The operator's public URL names this host as browsers behind a proxy reach it: its host is
  // this server's address too (Host and Origin), as --allowed-host would make it.
  const configured = host.oauth.configuredPublicUrl();
  const publicHost = configured === undefined ? [] : [new URL(configured).host.toLowerCase()];
  allowed = allowedHostsFor(hostname, port, [...(extraAllowedHosts ?? []), ...publicHost]);
  const urlHost = hostname.includes(":") ? `[${hostname}]` : hostname;
  const url = `http://${urlHost}:${port}`;
  host.oauth.adoptPublicUrl(url);
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    mcpUrl: (agent) => `${url}/mcp/${encodeURIComponent(agent)}`,
    mcpStats: () => endpoint?.stats(),
    close() {
      closing ??= (async () => {
        // Graceful: stop accepting (readyz 503), let calls in flight finish, then cut the rest.
        await inFlight.drain(server, drainMs ?? 10_000, () => host.stopCalls());
        await endpoint?.close();
      })();
      return closing;
    },
  };
}
