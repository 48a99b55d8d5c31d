// Child process of the migration crash test: runs this version's real migrations (migrateSqlite
// on a data dir's airlock.db, or migratePostgres on a schema) through a connection that counts
// every statement it is asked to run, and SIGKILLs its own process just before statement
// number argv[3] (1-based), so the kill lands between two statements of a migration run with
// nothing flushed or rolled back by this process. With argv[3] = 0 it runs everything and prints
// the statements' labels as JSON (one per line), for the test to pick its kill points.
//   node migrate-crash-child.ts '{"kind":"sqlite","dataDir":…}' | '{"kind":"postgres","url":…,"schema":…}' <killBefore>
import { writeSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { migratePostgres } from "../../host/src/state/store/postgres/migrations.ts";
import { migrateSqlite } from "../../host/src/state/store/sqlite/migrations.ts";

const config = JSON.parse(process.argv[2] ?? "{}") as {
  kind: string;
  dataDir?: string;
  url?: string;
  schema?: string;
};
const killBefore = Number(process.argv[3]);
if (!Number.isInteger(killBefore))
  throw new Error("usage: migrate-crash-child.ts <config json> <killBefore>");

const labels: string[] = [];
/** Called before each statement: the kill, when this is the chosen one. */
function step(label: string): void {
  labels.push(label.replace(/\s+/g, " ").trim().slice(0, 80));
  if (labels.length === killBefore) process.kill(process.pid, "SIGKILL");
}

if (config.kind === "sqlite") {
  const db = new DatabaseSync(join(config.dataDir ?? "", "airlock.db"));
  db.exec("PRAGMA busy_timeout = 5000");
  const counted = new Proxy(db, {
    get(target, name) {
      if (name === "exec")
        return (sql: string) => {
          step(sql);
          return target.exec(sql);
        };
      if (name === "prepare")
        return (sql: string) => {
          const statement = target.prepare(sql);
          return new Proxy(statement, {
            get(s, method) {
              const value = Reflect.get(s, method, s);
              if (typeof value !== "function") return value;
              if (method === "run" || method === "get" || method === "all")
                return (...args: unknown[]) => {
                  step(sql);
                  return value.apply(s, args);
                };
              return value.bind(s);
            },
          });
        };
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  migrateSqlite(counted);
  db.close();
} else {
  const client = new pg.Client({ connectionString: config.url, options: `-c search_path=${config.schema}` });
  await client.connect();
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  (client as unknown as { query: typeof query }).query = (...args: unknown[]) => {
    step(String(args[0]));
    return query(...args);
  };
  await migratePostgres(client as unknown as pg.PoolClient, config.schema);
  await client.end();
}
writeSync(1, `${labels.map((l) => JSON.stringify(l)).join("\n")}\n`);
