// The shared store: PostgreSQL through a pg Pool, for several host replicas sharing state.
// Invariants: every connection's search_path is the configured schema (so tests and tenants
// can isolate themselves); migrations are applied (once across replicas) before the store is
// handed out; a client's error, idle or checked out, is recorded instead of crashing the process
// (pool.ts).
import { storeError } from "../errors.ts";
import { postgresPluginWorkers } from "../plugin-workers.ts";
import { postgresTrustedKeys } from "../trusted-keys.ts";
import type { Store } from "../types.ts";
import { postgresAudit } from "./audit.ts";
import { postgresAuthServer } from "./authz.ts";
import { postgresBroker } from "./broker.ts";
import { postgresCluster } from "./cluster.ts";
import { postgresData } from "./data.ts";
import { createDb } from "./db.ts";
import { postgresKnowledge } from "./knowledge.ts";
import { migratePostgres } from "./migrations.ts";
import { openPool } from "./pool.ts";
import { postgresRegistry } from "./registry.ts";
import { postgresTasks } from "./tasks.ts";

const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresStoreConfig {
  url: string;
  schema?: string;
  maxConnections?: number;
}

export async function openPostgresStore(config: PostgresStoreConfig): Promise<Store> {
  const { schema } = config;
  if (schema !== undefined && !SCHEMA_PATTERN.test(schema)) {
    throw storeError(
      "AIRLOCK_STORE_CONFIG_INVALID",
      `PostgreSQL schema ${JSON.stringify(schema)} must match ${SCHEMA_PATTERN} (lowercase identifier)`,
    );
  }
  const searchPath = schema === undefined ? {} : { options: `-c search_path=${schema}` };
  const pool = openPool({
    connectionString: config.url,
    max: config.maxConnections ?? 10,
    connectionTimeoutMillis: 10_000,
    ...searchPath,
  });
  const db = createDb(pool);
  let closed = false;
  const store: Store = {
    kind: "postgres",
    async migrate() {
      const client = await pool.connect();
      try {
        await migratePostgres(client, schema);
      } finally {
        client.release();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
    ...postgresRegistry(db),
    ...postgresData(db),
    ...postgresKnowledge(db),
    ...postgresAudit(db),
    ...postgresBroker(db),
    ...postgresPluginWorkers(db),
    ...postgresTrustedKeys(db),
    ...postgresTasks(db),
    ...postgresAuthServer(db),
    cluster: postgresCluster(db, { connectionString: config.url, ...searchPath }, schema),
  };
  try {
    await store.migrate();
  } catch (err) {
    await pool.end();
    if ((err as { code?: string }).code?.startsWith("AIRLOCK_")) throw err;
    throw storeError(
      "AIRLOCK_STORE_OPEN_FAILED",
      `cannot open the PostgreSQL store at ${target(config.url)}`,
      {
        cause: err,
      },
    );
  }
  return store;
}

/** host:port/database of a connection URL, never its credentials. */
function target(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch (err) {
    return `an unparsable URL (${(err as Error).name})`;
  }
}
