// docs/deploy.md "Backup and restore", run exactly as printed: each `sh` block of the section,
// line by line through /bin/sh, with `airlock` on PATH (a shim running this checkout's binary)
// and the variables the page names set. The SQLite lines back up a populated data dir and
// restore it; the PostgreSQL lines pg_dump a populated host's schema (and its queue's), save the
// master key, and pg_restore into a new database, which a real `airlock serve` then serves: the
// secret-using tool answers, the document is there, and the agent token authenticates.

import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../host/src/host.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { populate, textOf } from "../support/backup-fixture.ts";
import { describePg, PG_URL } from "../support/postgres.ts";
import { BIN, daemon } from "./cli-support.ts";

const doc = readFileSync(resolve(import.meta.dirname, "../../docs/deploy.md"), "utf8");
const section = doc.slice(doc.indexOf("## Backup and restore"));
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
  (m[1] as string)
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== ""),
);

const work = mkdtempSync(join(tmpdir(), "airlock-backup-doc-"));
const shims = join(work, "bin");
mkdirSync(shims);
writeFileSync(
  join(shims, "airlock"),
  `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --no-node-snapshot ${JSON.stringify(BIN.airlock)} "$@"\n`,
);
chmodSync(join(shims, "airlock"), 0o755);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const baseEnv = {
  PATH: `${shims}:${process.env.PATH ?? ""}`,
  HOME: join(work, "home"),
  XDG_STATE_HOME: join(work, "state"),
  AIRLOCK_SANDBOX: "in-process",
};

/** Runs each line as printed; every one must exit 0. */
function runLines(lines: readonly string[], cwd: string, env: Record<string, string>): void {
  for (const line of lines) {
    const r = spawnSync("/bin/sh", ["-c", line], { cwd, env: { ...baseEnv, ...env }, encoding: "utf8" });
    expect(r.status, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
  }
}

describe("docs/deploy.md: backing up and restoring an embedded data dir", () => {
  it("has the section's three sh blocks (SQLite; PostgreSQL backup; PostgreSQL restore)", () => {
    expect(blocks).toHaveLength(3);
    expect(blocks[0]?.join("\n")).toContain("airlock backup");
    expect(blocks[1]?.join("\n")).toContain("pg_dump");
    expect(blocks[2]?.join("\n")).toContain("pg_restore");
  });

  it("runs the SQLite lines as printed, and the restored dir serves what the original did", async () => {
    const cwd = join(work, "sqlite");
    mkdirSync(cwd);
    const host = await createHost({ dataDir: join(cwd, "airlock-data"), sandbox: { mode: "in-process" } });
    const facts = await populate(host).finally(() => host.close());
    runLines(blocks[0] ?? [], cwd, {});
    const restored = await createHost({
      dataDir: join(cwd, "airlock-restored"),
      sandbox: { mode: "in-process" },
    });
    try {
      expect(textOf(await restored.callTool("keeper", "vault:check", { guess: facts.apiKey }))).toBe("match");
      expect((await restored.authenticate(facts.agentToken))?.agent).toBe("keeper");
    } finally {
      await restored.close();
    }
  }, 180_000);
});

describePg("docs/deploy.md: backing up and restoring a PostgreSQL deployment", () => {
  const schema = freshSchemaName("airlock_bk");
  const database = `airlock_restore_${randomBytes(6).toString("hex")}`;
  const restoreUrl = (() => {
    const u = new URL(PG_URL);
    u.pathname = `/${database}`;
    return u.toString();
  })();
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  afterAll(async () => {
    await dropSchemas(PG_URL, [schema]);
    await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  });

  it("dumps a populated host's schema with its key, restores into a new database, and serves from it", async () => {
    const cwd = join(work, "pg");
    mkdirSync(cwd);
    const key = randomBytes(32).toString("base64");
    const keyFile = join(cwd, "key-in-use");
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
    const host = await createHost({
      dataDir: join(cwd, "replica-1"),
      store: { kind: "postgres", url: PG_URL, schema },
      masterKey: key,
      sandbox: { mode: "in-process" },
    });
    const facts = await populate(host).finally(() => host.close());
    const env = {
      AIRLOCK_PG_URL: PG_URL,
      AIRLOCK_PG_SCHEMA: schema,
      AIRLOCK_MASTER_KEY_FILE: keyFile,
      RESTORE_PG_URL: restoreUrl,
    };
    runLines(blocks[1] ?? [], cwd, env);
    expect(existsSync(join(cwd, "airlock.pgdump"))).toBe(true);
    await admin(`CREATE DATABASE "${database}"`);
    runLines(blocks[2] ?? [], cwd, env);

    // a fresh replica on the restored database with the saved key, as "Each replica" starts one
    const replica = await daemon(
      "airlock",
      [
        "serve",
        "--store",
        `${restoreUrl}?schema=${schema}`,
        "--data-dir",
        join(cwd, "replica-2"),
        "--port",
        "0",
        "--sandbox",
        "in-process",
      ],
      /Press Ctrl\+C to stop/,
      { env: { ...baseEnv, AIRLOCK_MASTER_KEY_FILE: join(cwd, "airlock-master.key") } },
    );
    try {
      const url = /Admin API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api/.exec(replica.output())?.[1];
      expect(url, replica.output()).toBeDefined();
      const callAs = async (token: string, tool: string, input: unknown) => {
        const r = await fetch(`${url}/api/agents/keeper/calls`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ tool, input }),
        });
        return {
          status: r.status,
          body: (await r.json()) as { result?: { content?: Array<{ text?: string }> } },
        };
      };
      const check = await callAs(facts.agentToken, "vault:check", { guess: facts.apiKey });
      expect(check.status, JSON.stringify(check.body)).toBe(200);
      expect(check.body.result?.content?.[0]?.text).toBe("match");
      const recall = await callAs(facts.agentToken, "vault:recall", { id: facts.documentId });
      expect(recall.body.result?.content?.[0]?.text).toBe(facts.documentContent);
      expect((await callAs("alk_ag_not-a-token", "vault:check", { guess: "x" })).status).toBe(401);
    } finally {
      await replica.stop();
    }
  }, 240_000);
});
