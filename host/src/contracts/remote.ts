// The library API of remote MCP servers installed as plugins (`host.remote`): install a server
// under a namespace, see its pinned definitions and what the server lists now, review a change,
// mark a tool read-only. The admin API (routes/remote.ts) and the CLI (`airlock remote …`,
// `airlock install mcp+…`) are thin layers over it; so is the console (engine/remote/ implements it).
// Invariants: a server's tools are served only as pinned; a changed or dropped definition is
// refused until an operator reviews it; views carry a header's secret name, never its value.
import type { InstallReport } from "./plugins.ts";

export interface RemoteInstallOptions {
  /** The plugin namespace its tools are listed under (`<ns>:<tool>`). */
  namespace: string;
  /** Private/loopback addresses the server may be on (`127.0.0.1`, a CIDR, a host name), as ctx.fetch's allowPrivate. */
  allowPrivate?: string[];
  /** A static header sent with every request, its value the agent's secret `secret`. */
  header?: { name: string; secret: string };
  /**
   * OAuth through the host's broker instead of a static header: the provider's endpoints and
   * scopes; the server's host is its API host. An agent connects it with the broker's link; its
   * token then goes in the Authorization header toward this server only.
   */
  oauth?: RemoteOAuthOptions;
  /** Whose secret (or OAuth connection) authenticates the listing made now (default: none). */
  asAgent?: string;
  /** `mcp+stdio:<command>` only: the command's arguments. */
  args?: string[];
  /** `mcp+stdio:<command>` only: the operator's explicit allowance, the exact command. */
  allowCommand?: string;
}

export interface RemoteOAuthOptions {
  /** The provider's name (snake_case): its client id is the agent's secret `<provider>_oauth_client_id`. */
  provider: string;
  authorizationUrl: string;
  tokenUrl: string;
  revocationUrl?: string;
  scopes?: string[];
}

export interface RemoteToolView {
  /** `<ns>:<tool>` */
  id: string;
  tool: string;
  remoteName: string;
  /** sha256 of the pinned definition (name, description, schemas). */
  hash: string;
  /** The operator's mark; the server's readOnlyHint is only in `hints`. */
  readOnly: boolean;
  hints: Record<string, unknown>;
  /** Whether calls are refused because the server changed or dropped this definition. */
  refused: boolean;
}

export interface RemoteChange {
  tool: string;
  remoteName: string;
  kind: "changed" | "added" | "removed";
  pinnedHash: string | null;
  listedHash: string | null;
  pinnedDescription: string | null;
  listedDescription: string | null;
}

export interface RemoteServerView {
  namespace: string;
  url: string;
  version: string;
  revision: number;
  server: { name: string; version: string } | null;
  header: { name: string; secret: string } | null;
  /** A server the host runs (`stdio:<command>` urls): its command and arguments, or null. */
  stdio: { command: string; args: string[] } | null;
  /** The OAuth provider it uses through the broker, or null. */
  oauth: { provider: string; authorizationUrl: string; tokenUrl: string; scopes: string[] } | null;
  allowPrivate: string[];
  tools: RemoteToolView[];
}

export interface RemoteStatus extends RemoteServerView {
  /** What the server lists now against the pins; empty when nothing changed. */
  changes: RemoteChange[];
}

export interface RemoteReviewOptions {
  asAgent?: string;
  /**
   * The listed hashes the operator saw (tool → listedHash, null for a removal): the review is
   * refused with AIRLOCK_REMOTE_DEFINITION_CHANGED when the server now lists something else.
   */
  expect?: Record<string, string | null>;
}

export interface RemoteServers {
  install(url: string, options: RemoteInstallOptions): Promise<InstallReport>;
  list(): Promise<RemoteServerView[]>;
  /** Lists the server now and compares with the pins. */
  status(namespace: string, options?: { asAgent?: string }): Promise<RemoteStatus>;
  /** Pins what the server lists now (a new revision); AIRLOCK_REMOTE_NO_CHANGE when nothing changed. */
  review(namespace: string, options?: RemoteReviewOptions): Promise<RemoteStatus>;
  /** The operator's read-only mark (a new revision): a read-only tool needs no approval. */
  setReadOnly(namespace: string, tool: string, readOnly: boolean): Promise<RemoteToolView>;
  /** Sessions toward remote servers this host opened, operations that reused one, and those idle now. */
  sessions(): { opened: number; reused: number; idle: number };
}
