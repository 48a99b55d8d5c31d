// The pipeline's two touch points for remote tools: `screen` at run start (up-front
// registration: the server is listed as the run's agent, and pinned tools it changed or dropped
// are left out of the run) and `execute`, the call itself in place of the sandbox.
// Invariants: a call lists the server again in its own session and refuses a tool whose listed
// definition no longer matches its pin (AIRLOCK_REMOTE_DEFINITION_CHANGED) before calling it;
// one deadline (the tool's wallMs) and the caller's cancellation bound the whole call; progress
// from the server reaches the caller as the tool's progress; a failure is a Stop with an
// AIRLOCK_* code, a passed deadline always AIRLOCK_TOOL_TIMEOUT; a server on the OAuth broker is
// not contacted for an agent without a token (the result is the connect link, as ctx.oauth's
// requireToken answers); a screening listing that fails
// leaves the run as the pins are (its calls then fail with the server's own code) and never
// holds the run up past its time limit.
import { hasCode } from "@airlock/sdk/errors";
import type { InstalledPluginRecord } from "../../state/store/types.ts";
import type { CatalogueEntry } from "../catalogue/catalogue.ts";
import type { ExecuteRequest, Stop } from "../pipeline/call-types.ts";
import type { RemoteContext } from "./context.ts";
import { type RemoteTool, remoteSectionOf } from "./definitions.ts";
import { remoteError } from "./errors.ts";

/** Protocol overhead a result may add over maxResultBytes on the wire (JSON-RPC, SSE framing). */
const WIRE_OVERHEAD_BYTES = 64 * 1024;
/** The byte cap on a listing, and how long a run-start listing may take. */
export const LISTING_MAX_BYTES = 4 * 1024 * 1024;
export const LISTING_TIMEOUT_MS = 5_000;

export interface RemoteExecutor {
  /** Ids of the entries the run must leave out (definitions changed or dropped since pinned). */
  screen(agent: string, entries: readonly CatalogueEntry[]): Promise<Set<string>>;
  execute(req: ExecuteRequest): Promise<{ result: unknown } | Stop>;
}

function stopOf(error: unknown, fallback: string): Stop {
  if (hasCode(error) && error.code.startsWith("AIRLOCK_"))
    return { code: error.code, message: error.message };
  return { code: "AIRLOCK_REMOTE_PROTOCOL", message: `${fallback}: ${String(error)}` };
}

export function createRemoteExecutor(ctx: RemoteContext): RemoteExecutor {
  const listings = new Map<string, { at: number; listed: Promise<RemoteTool[] | null> }>();
  type Listing = { at: number; listed: Promise<RemoteTool[] | null> };

  async function listAs(record: InstalledPluginRecord, agent: string): Promise<RemoteTool[] | null> {
    const section = remoteSectionOf(record);
    if (section === undefined) return null;
    const signal = AbortSignal.timeout(LISTING_TIMEOUT_MS);
    try {
      return await ctx.withSession(
        section,
        record.namespace,
        agent,
        { maxBytes: LISTING_MAX_BYTES, signal },
        (session) => session.listTools(),
      );
    } catch (error) {
      ctx.report(`listing remote MCP server ${record.namespace}`, error);
      return null;
    }
  }

  function cachedListing(record: InstalledPluginRecord, agent: string): Listing {
    const key = `${record.namespace}@${record.version}|${agent}`;
    const cached = listings.get(key);
    if (cached !== undefined && performance.now() - cached.at < ctx.listTtlMs) return cached;
    const entry = { at: performance.now(), listed: listAs(record, agent) };
    listings.set(key, entry);
    if (listings.size > 1000) listings.delete(listings.keys().next().value as string);
    return entry;
  }

  return {
    async screen(agent, entries) {
      const plugins = new Map<string, InstalledPluginRecord>();
      for (const entry of entries) {
        if (remoteSectionOf(entry.plugin) !== undefined) plugins.set(entry.namespace, entry.plugin);
      }
      const refused = new Set<string>();
      await Promise.all(
        [...plugins.values()].map(async (record) => {
          const section = remoteSectionOf(record);
          if (section === undefined) return;
          const listing = cachedListing(record, agent);
          const listed = await listing.listed;
          const drifted =
            listed === null
              ? new Set(ctx.drift(`${record.namespace}@${record.version}`).keys())
              : ctx.observe(record, section, listed, listing.at);
          for (const tool of drifted) refused.add(`${record.namespace}:${tool}`);
        }),
      );
      return refused;
    },

    async execute(req) {
      const { entry, limits } = req;
      const section = remoteSectionOf(entry.plugin);
      const pin = section?.tools[entry.tool.name];
      if (section === undefined || pin === undefined) {
        return { code: "AIRLOCK_REMOTE_TOOL_UNKNOWN", message: `${entry.id} is not a pinned remote tool` };
      }
      const deadline = AbortSignal.timeout(limits.wallMs);
      const signal =
        req.options.signal === undefined ? deadline : AbortSignal.any([deadline, req.options.signal]);
      const timeout: Stop = {
        code: "AIRLOCK_TOOL_TIMEOUT",
        message: `Tool ${entry.id} did not finish within ${limits.wallMs} ms and was stopped.`,
      };
      const notify = (n: { progress: number; total?: number; message?: string }) => {
        if (signal.aborted) return;
        const note = { type: "progress" as const, ...n };
        try {
          req.options.onNotification?.(note);
        } catch (error) {
          ctx.report(`notification listener of ${entry.id}`, error);
        }
        req.emitProgress(note);
      };
      try {
        // A server on the OAuth broker: no token yet → the connect link is the call's result.
        const connect = await ctx.oauthRequired(section, entry.namespace, req.run.agent, entry.id);
        if (connect !== null) return { result: connect };
        const limitsOfCall = { maxBytes: limits.maxResultBytes + WIRE_OVERHEAD_BYTES, signal };
        const result = await ctx.withSession(
          section,
          entry.namespace,
          req.run.agent,
          limitsOfCall,
          async (session) => {
            const listedAt = performance.now();
            const listed = await session.listTools();
            if (ctx.observe(entry.plugin, section, listed, listedAt).has(entry.tool.name)) {
              throw remoteError(
                "AIRLOCK_REMOTE_DEFINITION_CHANGED",
                `The remote server changed or dropped ${entry.id} since an operator pinned it; it is not served until an operator reviews the change.`,
              );
            }
            return session.callTool(pin.remoteName, req.input, notify);
          },
        );
        return { result };
      } catch (error) {
        if (req.options.signal?.aborted === true) {
          return { code: "AIRLOCK_TOOL_CANCELLED", message: "The call was cancelled by the caller." };
        }
        if (deadline.aborted) return timeout;
        return stopOf(error, `remote tool ${entry.id} failed`);
      }
    },
  };
}
