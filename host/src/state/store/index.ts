// Entry point of the store: `openStore(config)` returns a migrated Store backed by SQLite
// (embedded default, `<dataDir>/airlock.db`) or PostgreSQL (shared by several host replicas).
// Invariants: the returned store has every migration applied; callers reach the database only
// through the Store interface (./types.ts); an outage of the database reaches them as
// AIRLOCK_STORE_UNAVAILABLE or AIRLOCK_STORE_FULL (failures.ts), never as a driver's error.
import { storeError } from "./errors.ts";
import { guardStore } from "./failures.ts";
import { openSqliteStore, type SqliteDurability } from "./sqlite/open.ts";
import type { Store } from "./types.ts";

export type StoreConfig =
  | {
      kind: "sqlite";
      dataDir: string;
      /** "normal" (default): WAL + synchronous=NORMAL; "full": fsync on every commit (see open.ts). */
      durability?: SqliteDurability;
      /** A cap on airlock.db's size (max_page_count): past it, writes answer AIRLOCK_STORE_FULL. */
      maxBytes?: number;
    }
  | {
      kind: "postgres";
      url: string;
      /** Schema to keep the tables in (created if missing); default: the server's search_path. */
      schema?: string;
      /** Pool size; default 10. */
      maxConnections?: number;
    };

export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.kind === "sqlite") {
    if (typeof config.dataDir !== "string" || config.dataDir === "") {
      throw storeError("AIRLOCK_STORE_CONFIG_INVALID", "a SQLite store needs a dataDir");
    }
    return guardStore(
      await openSqliteStore(config.dataDir, {
        ...(config.durability === undefined ? {} : { durability: config.durability }),
        ...(config.maxBytes === undefined ? {} : { maxBytes: config.maxBytes }),
      }),
    );
  }
  if (config.kind === "postgres") {
    if (typeof config.url !== "string" || config.url === "") {
      throw storeError("AIRLOCK_STORE_CONFIG_INVALID", "a PostgreSQL store needs a url");
    }
    const { openPostgresStore } = await import("./postgres/open.ts");
    return guardStore(await openPostgresStore(config));
  }
  throw storeError(
    "AIRLOCK_STORE_CONFIG_INVALID",
    `unknown store kind ${JSON.stringify((config as { kind: unknown }).kind)}; accepted: sqlite, postgres`,
  );
}

export { STORE_ERRORS } from "./errors.ts";
export { isStoreOutage, STORE_RETRY_AFTER_SECONDS } from "./failures.ts";
export type { SqliteDurability } from "./sqlite/open.ts";
export type { Store } from "./types.ts";
