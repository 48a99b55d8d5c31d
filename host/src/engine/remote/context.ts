// What the remote-MCP parts share: the host's pieces they use (store, secrets, egress policy,
// audit, the catalogue refresh that raises `tools.changed`), the drift state (definitions the
// server changed or dropped since they were pinned), and running an operation in a session to a
// server as one agent (kept for reuse by the session pool). One RemoteContext per host.
// Invariants: drift is kept per plugin version (a review makes a new version, which starts
// clean); a newly seen drift is audited once and raises `tools.changed` for every agent; a
// header's value comes from the agent's secret and is used only inside the gated fetch; a
// session is reused only under the same namespace, URL, allowed addresses and auth identity
// (a digest of the header's name and value, so a changed secret opens a new session).
import { createHash } from "node:crypto";
import type { OAuthProviderSpec, ToolResult } from "@airlock/sdk";
import type { PrivateAllowance } from "../../isolation/egress/address.ts";
import { compileAllowance } from "../../isolation/egress/address.ts";
import { systemResolver } from "../../isolation/egress/resolve.ts";
import type { EgressPolicy, Resolver } from "../../isolation/egress/types.ts";
import type { AuditInput, InstalledPluginRecord, Store } from "../../state/store/types.ts";
import {
  definitionHash as definitionHashOf,
  type RemoteSection,
  type RemoteTool,
  remoteProvider,
} from "./definitions.ts";
import { httpChannel, openSession, type Session } from "./session.ts";
import { createSessionPool } from "./session-pool.ts";
import { stdioChannel } from "./stdio-channel.ts";

export interface RemoteContextOptions {
  store: Store;
  /** Opens a ciphertext the store holds (the vault). */
  decrypt(ciphertext: string): string;
  egress: EgressPolicy;
  resolver?: Resolver | undefined;
  audit(entry: AuditInput): Promise<void>;
  /** Re-reads the catalogue and raises `tools.changed` (engine/admin/catalogue-sync.ts's refresh). */
  refreshCatalogue(): Promise<void>;
  /** Raises `tools.changed` for every agent without a reload (a drift seen). */
  toolsChanged(): void;
  report(what: string, error: unknown): void;
  /** How long a run-start listing is reused for the same agent and version (default 2 s). */
  listTtlMs?: number;
  /** How long an idle session toward a server is kept for the next call (default 60 s; 0: none). */
  sessionIdleMs?: number;
  /**
   * The OAuth broker, for servers that use it: the agent's access token for the provider
   * (refreshed when near expiry), or the tool result to answer instead (a connect link).
   */
  oauthBearer?(
    agent: string,
    plugin: string,
    provider: OAuthProviderSpec,
    toolId: string,
  ): Promise<{ token: string } | { result: ToolResult }>;
}

export type DriftKind = "changed" | "removed";

export interface RemoteContext extends RemoteContextOptions {
  readonly listTtlMs: number;
  /** Tool name → drift, for one plugin version (`ns@version`). */
  drift(key: string): ReadonlyMap<string, DriftKind>;
  /**
   * Records what a listing started at `listedAt` (performance.now()) showed for a version; audits
   * and announces a drift not seen before. A listing older than the last one recorded changes
   * nothing (a cached run-start listing never undoes what a later call saw). Returns the drifted tools.
   */
  observe(
    record: InstalledPluginRecord,
    section: RemoteSection,
    listed: readonly RemoteTool[],
    listedAt: number,
  ): Set<string>;
  /** Runs `work` in a session to the server as `agent` (its header secret), reusing an idle one. */
  withSession<T>(
    section: RemoteSection,
    namespace: string,
    agent: string | null,
    limits: { maxBytes: number; signal: AbortSignal },
    work: (session: Session) => Promise<T>,
  ): Promise<T>;
  /**
   * For a server that uses OAuth: null when the agent has a token, else the result a call answers
   * with (a connect link, or what the operator must set first). Null for any other server.
   */
  oauthRequired(
    section: RemoteSection,
    namespace: string,
    agent: string,
    toolId: string,
  ): Promise<ToolResult | null>;
  /** Sessions opened and reused (the bench reads these). */
  sessionStats(): { opened: number; reused: number; idle: number };
  /** Closes the idle sessions of namespaces not in `active` (uninstalled). */
  retainSessions(active: ReadonlySet<string>): Promise<void>;
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 10_000;

export function createRemoteContext(options: RemoteContextOptions): RemoteContext {
  const drifts = new Map<string, Map<string, DriftKind>>();
  const observedAt = new Map<string, number>();
  const allowances = new Map<string, PrivateAllowance>();
  const resolver = options.resolver ?? systemResolver;
  const pool = createSessionPool({ idleMs: options.sessionIdleMs ?? 60_000 });

  function allowanceFor(section: RemoteSection): PrivateAllowance {
    const entries = [...(options.egress.allowPrivate ?? []), ...section.allowPrivate];
    const key = entries.join("\n");
    let compiled = allowances.get(key);
    if (compiled === undefined) {
      compiled = compileAllowance(entries);
      allowances.set(key, compiled);
    }
    return compiled;
  }

  async function headerFor(section: RemoteSection, namespace: string, agent: string | null) {
    const provider = remoteProvider(section);
    if (provider !== undefined) {
      if (agent === null || options.oauthBearer === undefined) return undefined;
      // No token (or a broker failure making the connect answer, e.g. no public URL yet): the
      // request goes without one and the server's 401 says so (AIRLOCK_REMOTE_UNAUTHORIZED).
      const bearer = await options
        .oauthBearer(agent, namespace, provider, `${namespace}:*`)
        .catch((error: unknown) => {
          options.report(`OAuth token of ${agent} toward remote server ${namespace}`, error);
          return undefined;
        });
      return bearer !== undefined && "token" in bearer
        ? { name: "Authorization", value: `Bearer ${bearer.token}` }
        : undefined;
    }
    if (section.header === null || agent === null) return undefined;
    const stored = await options.store.getSecret(agent, section.header.secret);
    if (stored === null) return undefined;
    return { name: section.header.name, value: options.decrypt(stored.ciphertext) };
  }

  return {
    ...options,
    listTtlMs: options.listTtlMs ?? 2000,
    drift: (key) => drifts.get(key) ?? new Map(),
    observe(record, section, listed, listedAt) {
      const key = `${record.namespace}@${record.version}`;
      if (listedAt < (observedAt.get(key) ?? Number.NEGATIVE_INFINITY)) {
        return new Set((drifts.get(key) ?? new Map()).keys());
      }
      observedAt.set(key, listedAt);
      const byRemote = new Map(listed.map((t) => [t.name, t]));
      const now = new Map<string, DriftKind>();
      for (const [name, pin] of Object.entries(section.tools)) {
        const tool = byRemote.get(pin.remoteName);
        if (tool === undefined) now.set(name, "removed");
        else if (definitionHashOf(tool) !== pin.hash) now.set(name, "changed");
      }
      const before = drifts.get(key) ?? new Map<string, DriftKind>();
      const fresh = [...now].filter(([name, kind]) => before.get(name) !== kind);
      drifts.set(key, now);
      for (const [tool, kind] of fresh) {
        void options.audit({
          agent: null,
          plugin: record.namespace,
          tool,
          conversationId: null,
          kind: "admin",
          action: "remote.definition_changed",
          allowed: false,
          success: null,
          error: "AIRLOCK_REMOTE_DEFINITION_CHANGED",
          durationMs: null,
          details: { version: record.version, drift: kind },
        });
      }
      if (fresh.length > 0 || now.size !== before.size) options.toolsChanged();
      return new Set(now.keys());
    },
    async withSession(section, namespace, agent, limits, work) {
      if (section.stdio !== undefined && section.stdio !== null) {
        const stdio = section.stdio;
        const key = [namespace, section.url, JSON.stringify(stdio.args), "-"].join("\n");
        const open = (opening: { maxBytes: number; signal: AbortSignal }) =>
          openSession({ channel: stdioChannel(stdio), maxBytes: opening.maxBytes, signal: opening.signal });
        return pool.run(key, open, limits, work);
      }
      const url = new URL(section.url);
      const header = await headerFor(section, namespace, agent);
      const identity =
        header === undefined
          ? "-"
          : createHash("sha256").update(`${header.name}\n${header.value}`).digest("base64url");
      const key = [namespace, section.url, section.allowPrivate.join(","), identity].join("\n");
      const channel = httpChannel({
        url: section.url,
        namespace,
        rule: {
          host: url.hostname.replace(/^\[|\]$/g, ""),
          ports: [url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)],
          schemes: [url.protocol === "https:" ? "https" : "http"],
        },
        hosts: options.egress.hosts,
        allowance: allowanceFor(section),
        resolver,
        ca: undefined,
        header,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
      });
      const open = (opening: { maxBytes: number; signal: AbortSignal }) =>
        openSession({ channel, maxBytes: opening.maxBytes, signal: opening.signal });
      return pool.run(key, open, limits, work);
    },
    async oauthRequired(section, namespace, agent, toolId) {
      const provider = remoteProvider(section);
      if (provider === undefined) return null;
      if (options.oauthBearer === undefined) {
        return {
          isError: true,
          content: [
            {
              type: "text",
              text: `${toolId} needs OAuth, and this host has no OAuth broker. [AIRLOCK_OAUTH_NOT_CONNECTED]`,
            },
          ],
        };
      }
      const bearer = await options.oauthBearer(agent, namespace, provider, toolId);
      return "token" in bearer ? null : bearer.result;
    },
    sessionStats: () => pool.stats(),
    retainSessions: (active) => pool.retain((key) => active.has(key.slice(0, key.indexOf("\n")))),
    close: () => pool.close(),
  };
}
