// Versioned schema of the SQLite store. Migrations are append-only: a released entry is
// never edited, a change is a new entry. Each one runs in its own BEGIN IMMEDIATE
// transaction together with its row in schema_migrations, so several processes opening
// the same file apply each migration exactly once and a crash leaves none half-applied.
import type { DatabaseSync } from "node:sqlite";
import { storeError } from "../errors.ts";
import { nowIso } from "../shared.ts";
import { immediate } from "./tx.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
      CREATE TABLE agents (
        slug TEXT PRIMARY KEY,
        knowledge_level TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL,
        agent TEXT,
        label TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE installed_plugins (
        namespace TEXT NOT NULL,
        version TEXT NOT NULL,
        manifest TEXT NOT NULL,
        integrity TEXT NOT NULL,
        signer TEXT,
        source TEXT NOT NULL,
        path TEXT NOT NULL,
        installed_at TEXT NOT NULL,
        PRIMARY KEY (namespace, version)
      );
      CREATE TABLE plugin_activations (
        namespace TEXT PRIMARY KEY,
        active TEXT NOT NULL,
        previous TEXT,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE tool_enablement (
        agent TEXT NOT NULL,
        tool_id TEXT NOT NULL,
        PRIMARY KEY (agent, tool_id)
      );
      CREATE TABLE secrets (
        agent TEXT NOT NULL,
        key TEXT NOT NULL,
        ciphertext TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (agent, key)
      );
      CREATE TABLE conversation_state (
        agent TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        json TEXT NOT NULL,
        size INTEGER NOT NULL,
        PRIMARY KEY (agent, conversation_id, namespace, key)
      );
      CREATE TABLE artifacts (
        handle TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        filename TEXT NOT NULL,
        mime TEXT NOT NULL,
        bytes BLOB NOT NULL,
        size INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX artifacts_binding ON artifacts (agent, conversation_id);
      CREATE INDEX artifacts_expiry ON artifacts (expires_at);
      CREATE TABLE knowledge_docs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        agent TEXT NOT NULL,
        id TEXT NOT NULL,
        filename TEXT NOT NULL,
        content TEXT NOT NULL,
        mime TEXT NOT NULL,
        writer TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (agent, id)
      );
      CREATE INDEX knowledge_writer ON knowledge_docs (writer);
      CREATE VIRTUAL TABLE knowledge_fts USING fts5 (filename, content, tokenize = 'porter unicode61');
      CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        agent TEXT,
        plugin TEXT,
        tool TEXT,
        conversation_id TEXT,
        kind TEXT NOT NULL,
        action TEXT NOT NULL,
        allowed INTEGER NOT NULL,
        success INTEGER,
        error TEXT,
        duration_ms REAL,
        details TEXT
      );
      CREATE INDEX audit_agent ON audit (agent, id);
      CREATE INDEX audit_plugin ON audit (plugin, id);
      CREATE INDEX audit_tool ON audit (tool, id);
      CREATE INDEX audit_at ON audit (at);
    `,
  },
  {
    version: 2,
    name: "brokered credentials: OAuth flows and tokens, model connections, grants and usage",
    sql: `
      CREATE TABLE oauth_flows (
        state TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        subject TEXT NOT NULL,
        provider TEXT NOT NULL,
        plugin TEXT NOT NULL,
        verifier TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE TABLE oauth_tokens (
        agent TEXT NOT NULL,
        subject TEXT NOT NULL,
        provider TEXT NOT NULL,
        plugin TEXT NOT NULL,
        ciphertext TEXT NOT NULL,
        scopes TEXT NOT NULL,
        expires_at INTEGER,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (agent, subject, provider)
      );
      CREATE TABLE model_connections (
        name TEXT PRIMARY KEY,
        base_url TEXT NOT NULL,
        model TEXT NOT NULL,
        key_ciphertext TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE model_grants (
        agent TEXT NOT NULL,
        plugin TEXT NOT NULL,
        connection TEXT NOT NULL,
        max_tokens INTEGER,
        max_calls INTEGER,
        period TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (agent, plugin)
      );
      CREATE TABLE model_usage (
        agent TEXT NOT NULL,
        plugin TEXT NOT NULL,
        period TEXT NOT NULL,
        calls INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        PRIMARY KEY (agent, plugin, period)
      );
    `,
  },
  {
    version: 3,
    name: "plugin worker tiers",
    sql: `
      CREATE TABLE plugin_workers (
        namespace TEXT PRIMARY KEY,
        reason TEXT NOT NULL,
        details TEXT,
        updated_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: "tasks: long-running calls (host/src/engine/tasks/)",
    sql: `
      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        input TEXT NOT NULL,
        options TEXT NOT NULL,
        status TEXT NOT NULL,
        status_message TEXT,
        replica TEXT,
        outcome TEXT,
        error_code TEXT,
        error_message TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        beat_at INTEGER,
        ttl_ms INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX tasks_agent ON tasks (agent, created_at);
      CREATE INDEX tasks_working ON tasks (status, beat_at);
      CREATE INDEX tasks_expiry ON tasks (expires_at);
    `,
  },
  {
    version: 5,
    name: "tokens: the first characters of each token, for listings (never enough to use it)",
    sql: "ALTER TABLE tokens ADD COLUMN token_prefix TEXT;",
  },
  {
    version: 6,
    name: "authorization server: clients, grants, hashed codes and tokens (host/src/surfaces/http/authz/)",
    sql: `
      CREATE TABLE authz_clients (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        redirect_uris TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE authz_grants (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        client_name TEXT NOT NULL,
        agent TEXT NOT NULL,
        resource TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE INDEX authz_grants_agent ON authz_grants (agent, created_at);
      CREATE TABLE authz_secrets (
        hash TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        grant_id TEXT NOT NULL,
        data TEXT,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      );
      CREATE INDEX authz_secrets_expiry ON authz_secrets (expires_at);
    `,
  },
  {
    version: 7,
    // openSqliteStore copies both into audit.db (audit-file.ts moveAuditTrail) before migrating
    name: "the audit trail moves to its own file, audit.db, written by a thread (audit-file.ts)",
    sql: `
      DROP TABLE IF EXISTS audit;
      DROP TABLE IF EXISTS audit_journal_marks;
    `,
  },
  {
    version: 8,
    // engine/install/files.ts: a version's folder is recorded relative to the data directory, so
    // a data directory copied or restored elsewhere still finds its plugins. An absolute path of
    // a data directory's version folder (`<any data dir>/plugins/<namespace>/<version>`, as every
    // earlier host wrote it) becomes `plugins/<namespace>/<version>`; any other path is kept.
    name: "plugin paths relative to the data directory",
    sql: `
      UPDATE installed_plugins SET path = 'plugins/' || namespace || '/' || version
       WHERE substr(path, 1, 1) = '/'
         AND substr(path, -length('/plugins/' || namespace || '/' || version)) = '/plugins/' || namespace || '/' || version;
    `,
  },
  {
    version: 9,
    // engine/install/namespace-trust.ts: the publisher keys trusted for a namespace, shared by
    // every host on the store (they were files under <data-dir>/trust/namespaces/).
    name: "publisher keys trusted per namespace",
    sql: `
      CREATE TABLE trusted_keys (
        namespace TEXT NOT NULL,
        key_id TEXT NOT NULL,
        pem TEXT NOT NULL,
        added_at TEXT NOT NULL,
        PRIMARY KEY (namespace, key_id)
      );
    `,
  },
  {
    version: 10,
    // engine/tasks/resume.ts: a task of a tool safe to run again is resumed by another replica
    // when its own dies; the row says whether it may be (decided when it started) and how many
    // times it was.
    name: "tasks: resumable flag and resume count",
    sql: `
      ALTER TABLE tasks ADD COLUMN resumable INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE tasks ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    `,
  },
];

/** Applies every pending migration, each atomically; refuses a database newer than this build. */
export function migrateSqlite(db: DatabaseSync, migrations: readonly Migration[] = SQLITE_MIGRATIONS): void {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const latest = migrations.at(-1)?.version ?? 0;
  for (const m of migrations) {
    immediate(db, () => {
      const done = db.prepare("SELECT 1 FROM schema_migrations WHERE version = ?").get(m.version);
      if (done !== undefined) return;
      try {
        db.exec(m.sql);
      } catch (err) {
        throw storeError(
          "AIRLOCK_STORE_MIGRATION_FAILED",
          `SQLite migration ${m.version} (${m.name}) failed`,
          {
            cause: err,
          },
        );
      }
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.name,
        nowIso(),
      );
    });
  }
  const row = db.prepare("SELECT MAX(version) AS v FROM schema_migrations").get() as { v: number | null };
  if ((row.v ?? 0) > latest) {
    throw storeError(
      "AIRLOCK_STORE_SCHEMA_TOO_NEW",
      `the database is at schema version ${row.v}, this host knows up to ${latest}`,
    );
  }
}
