// The one store interface. Two implementations (SQLite via node:sqlite, PostgreSQL via pg)
// pass one shared conformance suite (host/src/state/store/conformance.ts).
// Invariants: every method is atomic (a failure leaves nothing half-written); values
// crossing the interface are plain data; secret values are stored only as ciphertext
// produced by host/src/state/secrets/ (the store never sees a master key or a plaintext secret).
import type { PluginManifest } from "@airlock/sdk/manifest";
import type {
  AgentKnowledgeLevel,
  AgentRecord,
  AuditInput,
  AuditQuery,
  AuditRecord,
  TokenRecord,
} from "../../contracts/records.ts";
import type { AuthServerStore } from "./authz-types.ts";
import type { BrokerStore } from "./broker-types.ts";
import type { ClusterStore } from "./cluster-types.ts";
import type { TaskStore } from "./task-types.ts";

export type {
  AgentKnowledgeLevel,
  AgentRecord,
  AuditInput,
  AuditQuery,
  AuditRecord,
  TokenRecord,
  TokenRole,
} from "../../contracts/records.ts";

export interface InstalledPluginRecord {
  namespace: string;
  version: string;
  manifest: PluginManifest;
  /** sha512 SRI of the tarball it was installed from. */
  integrity: string;
  /** Key id of the signer that was verified, or null when unsigned and explicitly allowed. */
  signer: string | null;
  /** Where it came from: a registry URL with name@version, or `file:<path>`. */
  source: string;
  /** Directory holding airlock.json, index.js and package.json. */
  path: string;
  installedAt: string;
}

/**
 * A plugin namespace that runs in a sandbox worker of its own (the workers sandbox's trust
 * tier); a namespace without a record shares the pool. Kept across uninstall (a quarantined
 * plugin reinstalled stays alone).
 */
export interface PluginWorkerRecord {
  namespace: string;
  /** "operator": an operator's choice; "quarantine": its isolate aborted a shared worker. */
  reason: "operator" | "quarantine";
  /** What happened (a quarantine: the version, the worker and the signal). */
  details: Record<string, unknown> | null;
  updatedAt: string;
}

/**
 * A publisher key trusted for one plugin namespace (engine/install/namespace-trust.ts): every
 * host on the store trusts it for that namespace's installs and upgrades and for rebuilding its
 * packages on a replica.
 */
export interface TrustedKeyRecord {
  namespace: string;
  /** `SHA256:<base64>` of the key (sdk/signing keyIdOf). */
  keyId: string;
  /** The Ed25519 public key, SPKI PEM. */
  pem: string;
  addedAt: string;
}

/** Which installed version of a namespace is active, and the one before it (for rollback). */
export interface PluginActivation {
  namespace: string;
  active: string;
  previous: string | null;
  updatedAt: string;
}

export interface SecretRecord {
  agent: string;
  key: string;
  /** Opaque ciphertext from host/src/state/secrets/ (AES-256-GCM, key id, nonce, tag). */
  ciphertext: string;
  updatedAt: string;
}

export interface ArtifactRecord {
  handle: string;
  agent: string;
  conversationId: string;
  filename: string;
  mime: string;
  bytes: Uint8Array;
  expiresAt: number;
}

export interface ArtifactCaps {
  maxBytesPerArtifact: number;
  maxCountPerBinding: number;
  maxBytesPerBinding: number;
  maxCountGlobal: number;
  maxBytesGlobal: number;
}

export type ArtifactPutOutcome =
  | { ok: true }
  | { ok: false; reason: "too_large" | "binding_full" | "global_full" };

export interface KnowledgeDocRecord {
  id: string;
  agent: string;
  filename: string;
  content: string;
  mime: string;
  writer: string;
  createdAt: string;
  updatedAt: string;
}

export type KnowledgeCreateOutcome = "created" | "exists" | "limit_reached";

export type KnowledgeAppendOutcome = "appended" | "not_found" | "not_owned" | "too_large";

export interface KnowledgeHitRecord {
  id: string;
  filename: string;
  snippet: string;
  score: number;
}

/** How far one audit journal is committed, recorded in the same transaction as a batch. */
export interface AuditJournalMark {
  journal: string;
  seq: number;
}

/** An append-only file that makes an audit entry durable before its batch commits. */
export interface AuditJournal {
  readonly name: string;
  /** The entry as the journal writes it: its time stamped and checked, its details sanitised. */
  stamp(entry: AuditInput): AuditInput;
  /**
   * Appends stamped entries, in order, with one write; durable against a killed process once it
   * returns. Returns the first one's sequence number (the rest follow by one). Throws when the
   * write fails (then none of them is numbered).
   */
  writeStamped(entries: readonly AuditInput[]): number;
  /** Every entry up to `seq` is committed (and marked): what holds only those may be emptied. */
  committed(seq: number): void;
  /** Closes the file; deletes the journal when everything in it was committed, else leaves it for replay. */
  close(allCommitted: boolean): void;
}

export interface Store extends BrokerStore {
  readonly kind: "sqlite" | "postgres";
  /** Applies pending migrations; idempotent. Called by the factory before the store is returned. */
  migrate(): Promise<void>;
  close(): Promise<void>;

  // agents
  ensureAgent(slug: string): Promise<AgentRecord>;
  getAgent(slug: string): Promise<AgentRecord | null>;
  listAgents(): Promise<AgentRecord[]>;
  setKnowledgeLevel(slug: string, level: AgentKnowledgeLevel): Promise<void>;
  deleteAgent(slug: string): Promise<void>;

  // tokens (only a hash of the token is stored)
  putToken(record: TokenRecord, tokenHash: string): Promise<void>;
  findToken(tokenHash: string): Promise<TokenRecord | null>;
  deleteToken(id: string): Promise<void>;
  /** Every token's record (never a hash), oldest first. */
  listTokens(): Promise<TokenRecord[]>;

  // installed plugins
  putInstalledPlugin(record: InstalledPluginRecord): Promise<void>;
  getInstalledPlugin(namespace: string, version: string): Promise<InstalledPluginRecord | null>;
  listInstalledPlugins(namespace?: string): Promise<InstalledPluginRecord[]>;
  deleteInstalledPlugin(namespace: string, version: string): Promise<void>;
  /** Sets the active version; the previously active one becomes `previous`. */
  activatePlugin(namespace: string, version: string): Promise<PluginActivation>;
  /** Swaps `active` and `previous`; null when there is no previous version. */
  rollbackPlugin(namespace: string): Promise<PluginActivation | null>;
  getActivation(namespace: string): Promise<PluginActivation | null>;
  listActivations(): Promise<PluginActivation[]>;
  deleteActivation(namespace: string): Promise<void>;

  // worker tiers (a namespace in a worker of its own)
  /** Creates or replaces the namespace's record. */
  putPluginWorker(record: PluginWorkerRecord): Promise<void>;
  deletePluginWorker(namespace: string): Promise<void>;
  listPluginWorkers(): Promise<PluginWorkerRecord[]>;

  // publisher keys trusted per namespace
  /** Keeps the key for its namespace; a key already kept keeps its row. */
  putTrustedKey(record: TrustedKeyRecord): Promise<void>;
  listTrustedKeys(namespace?: string): Promise<TrustedKeyRecord[]>;
  /** Whether a row was removed. */
  deleteTrustedKey(namespace: string, keyId: string): Promise<boolean>;

  // per-agent tool enablement
  setToolEnabled(agent: string, toolId: string, enabled: boolean): Promise<void>;
  listEnabledTools(agent: string): Promise<string[]>;
  /** Removes enablement rows for tools of a namespace across all agents; returns how many. */
  deleteToolEnablementForNamespace(namespace: string): Promise<number>;

  // secrets (ciphertext only)
  putSecret(record: SecretRecord): Promise<void>;
  getSecret(agent: string, key: string): Promise<SecretRecord | null>;
  listSecrets(agent: string): Promise<SecretRecord[]>;
  deleteSecret(agent: string, key: string): Promise<boolean>;

  // per-conversation, per-namespace state
  getState(agent: string, conversationId: string, namespace: string, key: string): Promise<string | null>;
  /** Sets a value unless the namespace's total for this conversation would exceed maxTotalBytes. */
  setState(
    agent: string,
    conversationId: string,
    namespace: string,
    key: string,
    json: string,
    maxTotalBytes: number,
  ): Promise<boolean>;
  deleteState(agent: string, conversationId: string, namespace: string, key: string): Promise<void>;
  listStateKeys(agent: string, conversationId: string, namespace: string): Promise<string[]>;

  // artifacts
  putArtifact(record: ArtifactRecord, caps: ArtifactCaps, now: number): Promise<ArtifactPutOutcome>;
  /** Atomically removes and returns the artifact when it is bound to (agent, conversation) and unexpired. */
  takeArtifact(
    handle: string,
    agent: string,
    conversationId: string,
    now: number,
  ): Promise<ArtifactRecord | null>;
  sweepArtifacts(now: number): Promise<number>;

  // knowledge
  putKnowledgeDoc(doc: KnowledgeDocRecord): Promise<void>;
  getKnowledgeDoc(agent: string, id: string): Promise<KnowledgeDocRecord | null>;
  listKnowledgeDocs(
    agent: string,
    options: { writer?: string; limit: number },
  ): Promise<KnowledgeDocRecord[]>;
  searchKnowledge(agent: string, query: string, limit: number): Promise<KnowledgeHitRecord[]>;
  deleteKnowledgeDoc(agent: string, id: string): Promise<boolean>;
  countKnowledgeDocs(agent: string): Promise<number>;
  /** Re-derives the search index entry of one document; false when it does not exist. */
  reindexKnowledgeDoc(agent: string, id: string): Promise<boolean>;
  deleteKnowledgeByWriter(writer: string): Promise<number>;
  /**
   * Creates a document unless its id exists ("exists") or the agent already holds `maxDocs`
   * documents ("limit_reached"); the count check and the insert are one atomic step.
   */
  createKnowledgeDoc(doc: KnowledgeDocRecord, maxDocs: number): Promise<KnowledgeCreateOutcome>;
  /**
   * Appends `content` to a document in one atomic step (concurrent appends never lose one).
   * With `writer`, only a document of that writer is changed ("not_owned" otherwise).
   */
  appendKnowledgeDoc(
    agent: string,
    id: string,
    content: string,
    options: { maxBytes: number; updatedAt: string; writer?: string },
  ): Promise<KnowledgeAppendOutcome>;

  // audit
  appendAudit(entry: AuditInput): Promise<void>;
  /**
   * Optional: appends several entries as one unit — all committed, or none (the host's audit
   * writer batches entries with it; without it, entries are appended one by one).
   */
  appendAuditBatch?(entries: readonly AuditInput[], mark?: AuditJournalMark): Promise<void>;
  /**
   * Optional (SQLite): a new audit journal (store/sqlite/audit-journal.ts) for the host's audit
   * writer; batches it commits pass `mark` so the journal's entries are committed exactly once.
   */
  openAuditJournal?(): AuditJournal;
  queryAudit(query: AuditQuery): Promise<AuditRecord[]>;

  /** What replicas sharing this store coordinate through; PostgreSQL only (store/cluster-types.ts). */
  readonly cluster?: ClusterStore;
  /** Long-running calls run as tasks (host/src/engine/tasks/), in both dialects. */
  readonly tasks: TaskStore;
  /** The host's own OAuth authorization server (host/src/surfaces/http/authz/), in both dialects. */
  readonly authServer: AuthServerStore;
}
