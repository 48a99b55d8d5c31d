// PostgreSQL: knowledge documents with a generated, GIN-indexed tsvector (english config;
// filename weighted above content). Search ranks with ts_rank and cuts a ts_headline snippet.
// Invariants: the tsvector is a stored generated column, so it can never disagree with the
// row it belongs to; user queries reach PostgreSQL only as words through plainto_tsquery.
import { searchTerms } from "../shared.ts";
import type { KnowledgePart } from "../sqlite/knowledge.ts";
import type { KnowledgeDocRecord } from "../types.ts";
import type { Db, Row } from "./db.ts";

const doc = (r: Row): KnowledgeDocRecord => ({
  id: String(r.id),
  agent: String(r.agent),
  filename: String(r.filename),
  content: String(r.content),
  mime: String(r.mime),
  writer: String(r.writer),
  createdAt: String(r.created_at),
  updatedAt: String(r.updated_at),
});

const COLUMNS = "agent, id, filename, content, mime, writer, created_at, updated_at";
const HEADLINE = "StartSel=[, StopSel=], MaxWords=24, MinWords=8, MaxFragments=1, FragmentDelimiter=…";

export function postgresKnowledge(db: Db): KnowledgePart {
  return {
    async putKnowledgeDoc(d) {
      await db.exec(
        `INSERT INTO knowledge_docs (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (agent, id) DO UPDATE SET filename = EXCLUDED.filename, content = EXCLUDED.content,
           mime = EXCLUDED.mime, writer = EXCLUDED.writer, updated_at = EXCLUDED.updated_at`,
        [d.agent, d.id, d.filename, d.content, d.mime, d.writer, d.createdAt, d.updatedAt],
      );
    },
    async getKnowledgeDoc(agent, id) {
      const [r] = await db.query(`SELECT ${COLUMNS} FROM knowledge_docs WHERE agent = $1 AND id = $2`, [
        agent,
        id,
      ]);
      return r === undefined ? null : doc(r);
    },
    async listKnowledgeDocs(agent, { writer, limit }) {
      const rows =
        writer === undefined
          ? await db.query(
              `SELECT ${COLUMNS} FROM knowledge_docs WHERE agent = $1 ORDER BY updated_at DESC, seq DESC LIMIT $2`,
              [agent, limit],
            )
          : await db.query(
              `SELECT ${COLUMNS} FROM knowledge_docs WHERE agent = $1 AND writer = $2
               ORDER BY updated_at DESC, seq DESC LIMIT $3`,
              [agent, writer, limit],
            );
      return rows.map(doc);
    },
    async searchKnowledge(agent, query, limit) {
      const terms = searchTerms(query);
      if (terms.length === 0) return [];
      const rows = await db.query(
        `SELECT id, filename, ts_headline('english', content, q, $3) AS snippet, ts_rank(tsv, q) AS score
         FROM knowledge_docs, plainto_tsquery('english', $2) AS q
         WHERE agent = $1 AND tsv @@ q
         ORDER BY score DESC, seq ASC LIMIT $4`,
        [agent, terms.join(" "), HEADLINE, limit],
      );
      return rows.map((r) => ({
        id: String(r.id),
        filename: String(r.filename),
        snippet: String(r.snippet),
        score: Number(r.score),
      }));
    },
    async deleteKnowledgeDoc(agent, id) {
      return (await db.exec("DELETE FROM knowledge_docs WHERE agent = $1 AND id = $2", [agent, id])) > 0;
    },
    async countKnowledgeDocs(agent) {
      const [r] = await db.query("SELECT COUNT(*) AS n FROM knowledge_docs WHERE agent = $1", [agent]);
      return Number(r?.n ?? 0);
    },
    async reindexKnowledgeDoc(agent, id) {
      // An UPDATE recomputes the stored generated tsvector from the current row.
      return (
        (await db.exec("UPDATE knowledge_docs SET content = content WHERE agent = $1 AND id = $2", [
          agent,
          id,
        ])) > 0
      );
    },
    async createKnowledgeDoc(d, maxDocs) {
      return db.tx(async (q) => {
        // Serialises creations per agent so the count check and the insert are one step.
        await q("SELECT pg_advisory_xact_lock(hashtext(current_schema()), hashtext($1))", [
          JSON.stringify(["knowledge", d.agent]),
        ]);
        const exists = await q("SELECT 1 FROM knowledge_docs WHERE agent = $1 AND id = $2", [d.agent, d.id]);
        if (exists.rows.length > 0) return "exists";
        const n = await q("SELECT COUNT(*) AS n FROM knowledge_docs WHERE agent = $1", [d.agent]);
        if (Number(n.rows[0]?.n) >= maxDocs) return "limit_reached";
        const inserted = await q(
          `INSERT INTO knowledge_docs (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
          [d.agent, d.id, d.filename, d.content, d.mime, d.writer, d.createdAt, d.updatedAt],
        );
        return inserted.rowCount === 1 ? "created" : "exists";
      });
    },
    async appendKnowledgeDoc(agent, id, content, { maxBytes, updatedAt, writer }) {
      return db.tx(async (q) => {
        const { rows } = await q(
          "SELECT writer, octet_length(content) AS size FROM knowledge_docs WHERE agent = $1 AND id = $2 FOR UPDATE",
          [agent, id],
        );
        const r = rows[0];
        if (r === undefined) return "not_found";
        if (writer !== undefined && r.writer !== writer) return "not_owned";
        if (Number(r.size) + Buffer.byteLength(content) > maxBytes) return "too_large";
        await q(
          "UPDATE knowledge_docs SET content = content || $3, updated_at = $4 WHERE agent = $1 AND id = $2",
          [agent, id, content, updatedAt],
        );
        return "appended";
      });
    },
    deleteKnowledgeByWriter: (writer) => db.exec("DELETE FROM knowledge_docs WHERE writer = $1", [writer]),
  };
}
