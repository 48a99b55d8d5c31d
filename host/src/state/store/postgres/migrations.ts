// Versioned schema of the PostgreSQL store. Append-only like the SQLite list: a released
// entry is never edited. All pending migrations run in ONE transaction that first takes a
// transaction-level advisory lock keyed by the schema, so replicas starting together migrate
// exactly once (the others wait, then find nothing pending) and a failure applies nothing.
import type pg from "pg";
import { storeError } from "../errors.ts";
import type { Migration } from "../sqlite/migrations.ts";

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial schema",
    sql: `
      CREATE TABLE agents (
        slug text PRIMARY KEY,
        knowledge_level text NOT NULL,
        created_at text NOT NULL
      );
      CREATE TABLE tokens (
        id text PRIMARY KEY,
        token_hash text NOT NULL UNIQUE,
        role text NOT NULL,
        agent text,
        label text NOT NULL,
        created_at text NOT NULL
      );
      CREATE TABLE installed_plugins (
        namespace text NOT NULL,
        version text NOT NULL,
        manifest jsonb NOT NULL,
        integrity text NOT NULL,
        signer text,
        source text NOT NULL,
        path text NOT NULL,
        installed_at text NOT NULL,
        PRIMARY KEY (namespace, version)
      );
      CREATE TABLE plugin_activations (
        namespace text PRIMARY KEY,
        active text NOT NULL,
        previous text,
        updated_at text NOT NULL
      );
      CREATE TABLE tool_enablement (
        agent text NOT NULL,
        tool_id text NOT NULL,
        PRIMARY KEY (agent, tool_id)
      );
      CREATE TABLE secrets (
        agent text NOT NULL,
        key text NOT NULL,
        ciphertext text NOT NULL,
        updated_at text NOT NULL,
        PRIMARY KEY (agent, key)
      );
      CREATE TABLE conversation_state (
        agent text NOT NULL,
        conversation_id text NOT NULL,
        namespace text NOT NULL,
        key text NOT NULL,
        json text NOT NULL,
        size integer NOT NULL,
        PRIMARY KEY (agent, conversation_id, namespace, key)
      );
      CREATE TABLE artifacts (
        handle text PRIMARY KEY,
        agent text NOT NULL,
        conversation_id text NOT NULL,
        filename text NOT NULL,
        mime text NOT NULL,
        bytes bytea NOT NULL,
        size integer NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX artifacts_binding ON artifacts (agent, conversation_id);
      CREATE INDEX artifacts_expiry ON artifacts (expires_at);
      CREATE TABLE knowledge_docs (
        agent text NOT NULL,
        id text NOT NULL,
        filename text NOT NULL,
        content text NOT NULL,
        mime text NOT NULL,
        writer text NOT NULL,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        seq bigserial NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (
          setweight(to_tsvector('english'::regconfig, filename), 'A') ||
          setweight(to_tsvector('english'::regconfig, content), 'B')
        ) STORED,
        PRIMARY KEY (agent, id)
      );
      CREATE INDEX knowledge_tsv ON knowledge_docs USING gin (tsv);
      CREATE INDEX knowledge_writer ON knowledge_docs (writer);
      CREATE TABLE audit (
        id bigserial PRIMARY KEY,
        at text NOT NULL,
        agent text,
        plugin text,
        tool text,
        conversation_id text,
        kind text NOT NULL,
        action text NOT NULL,
        allowed boolean NOT NULL,
        success boolean,
        error text,
        duration_ms double precision,
        details jsonb
      );
      CREATE INDEX audit_agent ON audit (agent, id);
      CREATE INDEX audit_plugin ON audit (plugin, id);
      CREATE INDEX audit_tool ON audit (tool, id);
      CREATE INDEX audit_at ON audit (at);
    `,
  },
  {
    version: 2,
    name: "replicas: heartbeats, approvals, event fan-out, plugin packages",
    sql: `
      CREATE TABLE replicas (
        id text PRIMARY KEY,
        started_at timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL DEFAULT now(),
        stopped_at timestamptz,
        streams integer NOT NULL DEFAULT 0
      );
      CREATE TABLE approvals (
        id text PRIMARY KEY,
        run_id text NOT NULL,
        agent text NOT NULL,
        tool_name text NOT NULL,
        input jsonb NOT NULL,
        requested_at text NOT NULL,
        replica text NOT NULL,
        status text NOT NULL,
        reason text,
        decided_at timestamptz
      );
      CREATE INDEX approvals_pending ON approvals (agent, requested_at) WHERE status = 'pending';
      CREATE INDEX approvals_replica ON approvals (replica) WHERE status = 'pending';
      CREATE TABLE host_events (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        replica text NOT NULL,
        type text NOT NULL,
        agent text,
        body jsonb NOT NULL
      );
      CREATE INDEX host_events_at ON host_events (at);
      CREATE TABLE plugin_packages (
        integrity text PRIMARY KEY,
        bytes bytea NOT NULL,
        signatures jsonb NOT NULL,
        stored_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 3,
    name: "brokered credentials: OAuth flows and tokens, model connections, grants and usage",
    sql: `
      CREATE TABLE oauth_flows (
        state text PRIMARY KEY,
        agent text NOT NULL,
        subject text NOT NULL,
        provider text NOT NULL,
        plugin text NOT NULL,
        verifier text NOT NULL,
        redirect_uri text NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE TABLE oauth_tokens (
        agent text NOT NULL,
        subject text NOT NULL,
        provider text NOT NULL,
        plugin text NOT NULL,
        ciphertext text NOT NULL,
        scopes text NOT NULL,
        expires_at bigint,
        updated_at text NOT NULL,
        PRIMARY KEY (agent, subject, provider)
      );
      CREATE TABLE model_connections (
        name text PRIMARY KEY,
        base_url text NOT NULL,
        model text NOT NULL,
        key_ciphertext text NOT NULL,
        updated_at text NOT NULL
      );
      CREATE TABLE model_grants (
        agent text NOT NULL,
        plugin text NOT NULL,
        connection text NOT NULL,
        max_tokens bigint,
        max_calls bigint,
        period text NOT NULL,
        updated_at text NOT NULL,
        PRIMARY KEY (agent, plugin)
      );
      CREATE TABLE model_usage (
        agent text NOT NULL,
        plugin text NOT NULL,
        period text NOT NULL,
        calls bigint NOT NULL,
        tokens bigint NOT NULL,
        PRIMARY KEY (agent, plugin, period)
      );
    `,
  },
  {
    version: 4,
    name: "plugin worker tiers",
    sql: `
      CREATE TABLE plugin_workers (
        namespace text PRIMARY KEY,
        reason text NOT NULL,
        details jsonb,
        updated_at text NOT NULL
      );
    `,
  },
  {
    version: 5,
    name: "tasks: long-running calls (host/src/engine/tasks/)",
    sql: `
      CREATE TABLE tasks (
        id text PRIMARY KEY,
        agent text NOT NULL,
        tool_name text NOT NULL,
        conversation_id text NOT NULL,
        input jsonb NOT NULL,
        options jsonb NOT NULL,
        status text NOT NULL,
        status_message text,
        replica text,
        outcome jsonb,
        error_code text,
        error_message text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        beat_at bigint,
        ttl_ms bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX tasks_agent ON tasks (agent, created_at);
      CREATE INDEX tasks_working ON tasks (status, beat_at);
      CREATE INDEX tasks_expiry ON tasks (expires_at);
    `,
  },
  {
    version: 6,
    name: "tokens: the first characters of each token, for listings (never enough to use it)",
    sql: "ALTER TABLE tokens ADD COLUMN token_prefix text;",
  },
  {
    version: 7,
    name: "authorization server: clients, grants, hashed codes and tokens (host/src/surfaces/http/authz/)",
    sql: `
      CREATE TABLE authz_clients (
        id text PRIMARY KEY,
        name text NOT NULL,
        redirect_uris text NOT NULL,
        created_at text NOT NULL
      );
      CREATE TABLE authz_grants (
        id text PRIMARY KEY,
        client_id text NOT NULL,
        client_name text NOT NULL,
        agent text NOT NULL,
        resource text NOT NULL,
        created_at text NOT NULL,
        revoked_at text
      );
      CREATE INDEX authz_grants_agent ON authz_grants (agent, created_at);
      CREATE TABLE authz_secrets (
        hash text PRIMARY KEY,
        kind text NOT NULL,
        grant_id text NOT NULL,
        data text,
        expires_at bigint NOT NULL,
        used_at bigint
      );
      CREATE INDEX authz_secrets_expiry ON authz_secrets (expires_at);
    `,
  },
  {
    version: 8,
    // Without it the console's kind filter read the trail newest first until it found a page:
    // every row for a rare kind (operator actions), bench row 13.
    name: "audit: an index for the kind filter",
    sql: "CREATE INDEX audit_kind ON audit (kind, id);",
  },
  {
    version: 9,
    // as SQLite's migration 8 (9 here: PostgreSQL's 8 is the audit kind index): a data
    // directory's version folder is recorded relative to it
    name: "plugin paths relative to the data directory",
    sql: `
      UPDATE installed_plugins SET path = 'plugins/' || namespace || '/' || version
       WHERE left(path, 1) = '/'
         AND right(path, length('/plugins/' || namespace || '/' || version)) = '/plugins/' || namespace || '/' || version;
    `,
  },
  {
    version: 10,
    // as SQLite's migration 9 (10 here): the publisher keys trusted per namespace, shared by every
    // replica
    name: "publisher keys trusted per namespace",
    sql: `
      CREATE TABLE trusted_keys (
        namespace text NOT NULL,
        key_id text NOT NULL,
        pem text NOT NULL,
        added_at text NOT NULL,
        PRIMARY KEY (namespace, key_id)
      );
    `,
  },
  {
    version: 11,
    // as SQLite's migration 10 (11 here): whether a task may be resumed by another replica, and
    // how many times it was
    name: "tasks: resumable flag and resume count",
    sql: `
      ALTER TABLE tasks ADD COLUMN resumable boolean NOT NULL DEFAULT false;
      ALTER TABLE tasks ADD COLUMN attempts integer NOT NULL DEFAULT 0;
    `,
  },
];

/** Applies pending migrations in `schema` (created if missing) under an advisory lock. */
export async function migratePostgres(
  client: pg.PoolClient,
  schema: string | undefined,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<void> {
  const latest = migrations.at(-1)?.version ?? 0;
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('airlock:migrate'), hashtext($1))", [
      schema ?? "",
    ]);
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)",
    );
    const done = await client.query<{ version: number }>("SELECT version FROM schema_migrations");
    const applied = new Set(done.rows.map((r) => r.version));
    const newest = Math.max(0, ...applied);
    if (newest > latest) {
      throw storeError(
        "AIRLOCK_STORE_SCHEMA_TOO_NEW",
        `the database is at schema version ${newest}, this host knows up to ${latest}`,
      );
    }
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      try {
        await client.query(m.sql);
      } catch (err) {
        throw storeError(
          "AIRLOCK_STORE_MIGRATION_FAILED",
          `PostgreSQL migration ${m.version} (${m.name}) failed`,
          {
            cause: err,
          },
        );
      }
      await client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
        m.version,
        m.name,
        new Date().toISOString(),
      ]);
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK");
    throw err;
  }
}
