// SQLite: knowledge documents with an FTS5 index (porter stemming over unicode61 words).
// Invariants: a document row and its FTS row (rowid = knowledge_docs.seq) are written and
// removed in the same BEGIN IMMEDIATE transaction, so the index never lists a document that
// is not there nor misses one that is. User queries never reach FTS5 syntax: they are cut
// into words, each quoted, and all must match.
import type { DatabaseSync } from "node:sqlite";
import { searchTerms } from "../shared.ts";
import type { KnowledgeDocRecord, Store } from "../types.ts";
import { immediate } from "./tx.ts";

type Row = Record<string, unknown>;

export type KnowledgePart = Pick<
  Store,
  | "putKnowledgeDoc"
  | "getKnowledgeDoc"
  | "listKnowledgeDocs"
  | "searchKnowledge"
  | "deleteKnowledgeDoc"
  | "countKnowledgeDocs"
  | "reindexKnowledgeDoc"
  | "deleteKnowledgeByWriter"
  | "createKnowledgeDoc"
  | "appendKnowledgeDoc"
>;

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

export function sqliteKnowledge(db: DatabaseSync): KnowledgePart {
  const index = (seq: number, filename: string, content: string) => {
    db.prepare("DELETE FROM knowledge_fts WHERE rowid = ?").run(seq);
    db.prepare("INSERT INTO knowledge_fts (rowid, filename, content) VALUES (?, ?, ?)").run(
      seq,
      filename,
      content,
    );
  };
  const removeWhere = (where: string, ...params: string[]): number =>
    immediate(db, () => {
      const rows = db.prepare(`SELECT seq FROM knowledge_docs WHERE ${where}`).all(...params) as Row[];
      for (const r of rows) db.prepare("DELETE FROM knowledge_fts WHERE rowid = ?").run(Number(r.seq));
      return Number(db.prepare(`DELETE FROM knowledge_docs WHERE ${where}`).run(...params).changes);
    });

  const upsert = (d: KnowledgeDocRecord) => {
    const r = db
      .prepare(
        `INSERT INTO knowledge_docs (agent, id, filename, content, mime, writer, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (agent, id) DO UPDATE SET filename = excluded.filename, content = excluded.content,
               mime = excluded.mime, writer = excluded.writer, updated_at = excluded.updated_at
             RETURNING seq`,
      )
      .get(d.agent, d.id, d.filename, d.content, d.mime, d.writer, d.createdAt, d.updatedAt) as Row;
    index(Number(r.seq), d.filename, d.content);
  };

  return {
    async putKnowledgeDoc(d) {
      immediate(db, () => upsert(d));
    },
    async createKnowledgeDoc(d, maxDocs) {
      return immediate(db, () => {
        if (db.prepare("SELECT 1 FROM knowledge_docs WHERE agent = ? AND id = ?").get(d.agent, d.id))
          return "exists";
        const n = db.prepare("SELECT COUNT(*) AS n FROM knowledge_docs WHERE agent = ?").get(d.agent) as Row;
        if (Number(n.n) >= maxDocs) return "limit_reached";
        upsert(d);
        return "created";
      });
    },
    async appendKnowledgeDoc(agent, id, content, { maxBytes, updatedAt, writer }) {
      return immediate(db, () => {
        const r = db
          .prepare("SELECT seq, filename, content, writer FROM knowledge_docs WHERE agent = ? AND id = ?")
          .get(agent, id) as Row | undefined;
        if (r === undefined) return "not_found";
        if (writer !== undefined && r.writer !== writer) return "not_owned";
        const next = String(r.content) + content;
        if (Buffer.byteLength(next) > maxBytes) return "too_large";
        db.prepare("UPDATE knowledge_docs SET content = ?, updated_at = ? WHERE seq = ?").run(
          next,
          updatedAt,
          Number(r.seq),
        );
        index(Number(r.seq), String(r.filename), next);
        return "appended";
      });
    },
    async getKnowledgeDoc(agent, id) {
      const r = db.prepare("SELECT * FROM knowledge_docs WHERE agent = ? AND id = ?").get(agent, id) as
        | Row
        | undefined;
      return r === undefined ? null : doc(r);
    },
    async listKnowledgeDocs(agent, { writer, limit }) {
      const rows =
        writer === undefined
          ? db
              .prepare(
                "SELECT * FROM knowledge_docs WHERE agent = ? ORDER BY updated_at DESC, seq DESC LIMIT ?",
              )
              .all(agent, limit)
          : db
              .prepare(
                "SELECT * FROM knowledge_docs WHERE agent = ? AND writer = ? ORDER BY updated_at DESC, seq DESC LIMIT ?",
              )
              .all(agent, writer, limit);
      return (rows as Row[]).map(doc);
    },
    async searchKnowledge(agent, query, limit) {
      const terms = searchTerms(query);
      if (terms.length === 0) return [];
      const match = terms.map((t) => `"${t}"`).join(" ");
      const rows = db
        .prepare(
          `SELECT d.id, d.filename, snippet(knowledge_fts, 1, '[', ']', '…', 16) AS snippet, bm25(knowledge_fts) AS rank
           FROM knowledge_fts JOIN knowledge_docs d ON d.seq = knowledge_fts.rowid
           WHERE knowledge_fts MATCH ? AND d.agent = ?
           ORDER BY rank LIMIT ?`,
        )
        .all(match, agent, limit) as Row[];
      return rows.map((r) => ({
        id: String(r.id),
        filename: String(r.filename),
        snippet: String(r.snippet),
        score: -Number(r.rank),
      }));
    },
    async deleteKnowledgeDoc(agent, id) {
      return removeWhere("agent = ? AND id = ?", agent, id) > 0;
    },
    async countKnowledgeDocs(agent) {
      const r = db.prepare("SELECT COUNT(*) AS n FROM knowledge_docs WHERE agent = ?").get(agent) as Row;
      return Number(r.n);
    },
    async reindexKnowledgeDoc(agent, id) {
      return immediate(db, () => {
        const r = db
          .prepare("SELECT seq, filename, content FROM knowledge_docs WHERE agent = ? AND id = ?")
          .get(agent, id) as Row | undefined;
        if (r === undefined) return false;
        index(Number(r.seq), String(r.filename), String(r.content));
        return true;
      });
    },
    async deleteKnowledgeByWriter(writer) {
      return removeWhere("writer = ?", writer);
    },
  };
}
