// Row 14: knowledge.search (the store operation ctx.knowledge.search runs; row 2 has the
// capability's own cost) as an agent's documents grow (10^3, 10^4, 10^5; 300 and 3,000 under
// --quick), on SQLite (FTS5) and on PostgreSQL (tsvector, GIN) in a fresh schema when it answers.
// Documents are filled in bulk, one SQL statement per size. Document i holds ~30 words: a word
// every document has ("report"), a topic word 1 % of them have (`topic<i % 100>`), words drawn
// from a vocabulary of 5,000, and the first 10 documents a rare word ("zephyr"). The queries: the
// rare word (10 matches at any size), a topic (n / 100 matches), the word every document has, and
// that word searched by another agent holding 10 documents. Target: flat, or no faster than log n.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { openStore } from "../../host/src/host.ts";
import { dropSchemas } from "../../host/src/state/store/postgres/test-schema.ts";
import type { Store } from "../../host/src/state/store/types.ts";
import { curveRows, type StoreUnderTest, storesUnderTest } from "../lib/growth.ts";
import type { Row } from "../lib/report.ts";
import { sample, summarize } from "../lib/stats.ts";

const QUERIES: Record<string, { agent: string; text: string }> = {
  "a rare word (10 matches)": { agent: "bench", text: "zephyr" },
  "a topic word (1 % match)": { agent: "bench", text: "topic42" },
  "a word every document has": { agent: "bench", text: "report" },
  "another agent's 10 documents": { agent: "other", text: "report" },
};

/** The content of document i, as an SQL expression over `i` (both dialects). */
const CONTENT = `'weekly report ' || (CASE WHEN i <= 10 THEN 'zephyr ' ELSE '' END) || 'topic' || (i % 100)
  || ' w' || (i * 7 % 5000) || ' w' || (i * 13 % 5000) || ' w' || (i * 31 % 5000) || ' w' || (i * 101 % 5000)
  || ' about throughput, latency, the sandbox boundary and what the operators decided in the review'
  || ' w' || (i * 17 % 5000) || ' w' || (i * 53 % 5000) || ' w' || (i * 211 % 5000) || ' final notes'`;

async function fill(target: StoreUnderTest, dataDir: string, agent: string, from: number, to: number) {
  const cols = "agent, id, filename, content, mime, writer, created_at, updated_at";
  const values = `'${agent}', 'doc-' || i, 'doc-' || i || '.md', ${CONTENT}, 'text/markdown', 'operator', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'`;
  if (target.store === undefined) {
    const db = new DatabaseSync(join(dataDir, "airlock.db"), { timeout: 60_000 });
    try {
      db.exec("BEGIN IMMEDIATE");
      const { seq } = db.prepare("SELECT COALESCE(MAX(seq), 0) AS seq FROM knowledge_docs").get() as {
        seq: number;
      };
      db.prepare(
        `WITH RECURSIVE s(i) AS (SELECT CAST(? AS INTEGER) UNION ALL SELECT i + 1 FROM s WHERE i < ?)
         INSERT INTO knowledge_docs (${cols}) SELECT ${values} FROM s`,
      ).run(from, to);
      db.prepare(
        "INSERT INTO knowledge_fts (rowid, filename, content) SELECT seq, filename, content FROM knowledge_docs WHERE seq > ?",
      ).run(seq);
      db.exec("COMMIT");
    } finally {
      db.close();
    }
    return;
  }
  const { url, schema } = target.store;
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO knowledge_docs (${cols}) SELECT ${values} FROM generate_series($1::int, $2::int) AS i`,
      [from, to],
    );
    await client.query("ANALYZE knowledge_docs");
  } finally {
    await client.end();
  }
}

export async function growthKnowledge(quick: boolean): Promise<Row[]> {
  const sizes = quick ? [300, 3000] : [1e3, 1e4, 1e5];
  const rows: Row[] = [];
  for (const target of await storesUnderTest()) {
    const dataDir = mkdtempSync(join(tmpdir(), "airlock-bench-knowledge-"));
    let store: Store | undefined;
    const curves = new Map<string, Array<{ n: number; s: ReturnType<typeof summarize> }>>();
    try {
      store = await openStore(target.store ?? { kind: "sqlite", dataDir });
      await fill(target, dataDir, "other", 1, 10);
      let filled = 0;
      for (const n of sizes) {
        await fill(target, dataDir, "bench", filled + 1, n);
        filled = n;
        for (const [name, { agent, text }] of Object.entries(QUERIES)) {
          const open = store;
          const hits = await open.searchKnowledge(agent, text, 5);
          if (hits.length === 0) throw new Error(`${name}: no hits`);
          const s = summarize(await sample(quick ? 5 : 100, () => open.searchKnowledge(agent, text, 5), 3));
          curves.set(name, [...(curves.get(name) ?? []), { n, s }]);
        }
      }
    } finally {
      await store?.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (target.store !== undefined) await dropSchemas(target.store.url, [target.store.schema]);
    }
    for (const [name, points] of curves) {
      rows.push(
        ...curveRows(
          "14",
          {
            chart: "knowledge-search",
            title: "knowledge.search (the store operation, 5 hits) against the agent's documents",
            series: `${target.name}: ${name}`,
            what: `knowledge.search, ${name} (${target.name})`,
            unit: "µs",
          },
          points,
        ),
      );
    }
  }
  return rows;
}
