// SQLite: the task rows (store/task-types.ts). Every state change is one conditional UPDATE …
// RETURNING, so two processes sharing the file cannot both settle, claim, resume or cancel a task.
import type { DatabaseSync } from "node:sqlite";
import { TASK_COLUMNS, taskFromRow } from "../task-rows.ts";
import type { StaleTask, TaskRow, TaskStore } from "../task-types.ts";

type Row = Record<string, unknown>;

type One = (sql: string, ...params: Array<string | number | null>) => TaskRow | null;

/** What moves a task between replicas: its progress, the stale candidates and their claim. */
function sqliteTaskResume(
  db: DatabaseSync,
  one: One,
): Pick<TaskStore, "noteTaskProgress" | "staleResumableTasks" | "resumeTask"> {
  return {
    async noteTaskProgress(id, replica, message, now) {
      const { changes } = db
        .prepare(
          "UPDATE tasks SET status_message = ?, updated_at = ? WHERE id = ? AND replica = ? AND status = 'working'",
        )
        .run(message, now, id, replica);
      return Number(changes) > 0;
    },
    async staleResumableTasks(staleBefore, maxAttempts, limit, now) {
      const rows = db
        .prepare(
          `SELECT id, replica, attempts FROM tasks
           WHERE status = 'working' AND resumable = 1 AND replica IS NOT NULL AND beat_at < ?
             AND attempts < ? AND expires_at > ?
           ORDER BY beat_at, id LIMIT ?`,
        )
        .all(staleBefore, maxAttempts, now, limit) as Row[];
      return rows.map(
        (r): StaleTask => ({ id: String(r.id), replica: String(r.replica), attempts: Number(r.attempts) }),
      );
    },
    async resumeTask(stale, staleBefore, replica, message, now) {
      return one(
        `UPDATE tasks SET replica = ?1, beat_at = ?2, updated_at = ?2, attempts = attempts + 1, status_message = ?3
         WHERE id = ?4 AND status = 'working' AND resumable = 1 AND replica = ?5 AND beat_at < ?6
           AND attempts = ?7 AND expires_at > ?2
         RETURNING ${TASK_COLUMNS}`,
        replica,
        now,
        message,
        stale.id,
        stale.replica,
        staleBefore,
        stale.attempts,
      );
    },
  };
}

export function sqliteTasks(db: DatabaseSync): { tasks: TaskStore } {
  const one: One = (sql, ...params) => {
    const row = db.prepare(sql).get(...params) as Row | undefined;
    return row === undefined ? null : taskFromRow(row);
  };
  const tasks: TaskStore = {
    async insertTask(t) {
      db.prepare(
        `INSERT INTO tasks (id, agent, tool_name, conversation_id, input, options, status, created_at, updated_at, ttl_ms, expires_at, resumable)
         VALUES (?, ?, ?, ?, ?, ?, 'working', ?, ?, ?, ?, ?)`,
      ).run(
        t.id,
        t.agent,
        t.toolName,
        t.conversationId,
        JSON.stringify(t.input),
        JSON.stringify(t.options),
        t.createdAt,
        t.createdAt,
        t.ttlMs,
        t.createdAt + t.ttlMs,
        t.resumable ? 1 : 0,
      );
    },
    async getTask(agent, id, now) {
      return one(
        `SELECT ${TASK_COLUMNS} FROM tasks WHERE id = ? AND agent = ? AND expires_at > ?`,
        id,
        agent,
        now,
      );
    },
    async listTasks(agent, now, after, limit) {
      const rows = (
        after === null
          ? db
              .prepare(
                `SELECT ${TASK_COLUMNS} FROM tasks WHERE agent = ? AND expires_at > ?
                 ORDER BY created_at DESC, id DESC LIMIT ?`,
              )
              .all(agent, now, limit)
          : db
              .prepare(
                `SELECT ${TASK_COLUMNS} FROM tasks WHERE agent = ? AND expires_at > ?
                   AND (created_at < ? OR (created_at = ? AND id < ?))
                 ORDER BY created_at DESC, id DESC LIMIT ?`,
              )
              .all(agent, now, after.createdAt, after.createdAt, after.id, limit)
      ) as Row[];
      return rows.map(taskFromRow);
    },
    async claimTask(id, replica, now) {
      return one(
        `UPDATE tasks SET replica = ?, beat_at = ?, updated_at = ?
         WHERE id = ? AND status = 'working' AND replica IS NULL AND expires_at > ?
         RETURNING ${TASK_COLUMNS}`,
        replica,
        now,
        now,
        id,
        now,
      );
    },
    async beatTasks(ids, replica, now) {
      if (ids.length === 0) return [];
      const rows = db
        .prepare(
          `UPDATE tasks SET beat_at = ? WHERE id IN (SELECT value FROM json_each(?)) AND replica = ?
           RETURNING id, status`,
        )
        .all(now, JSON.stringify(ids), replica) as Row[];
      return rows.map((r) => ({ id: String(r.id), status: String(r.status) as "working" }));
    },
    async settleTask(id, s, now, owner) {
      return one(
        `UPDATE tasks SET status = ?, outcome = ?, error_code = ?, error_message = ?, status_message = ?,
           input = '{}', updated_at = ?
         WHERE id = ? AND status = 'working' AND (?8 IS NULL OR replica = ?8) RETURNING ${TASK_COLUMNS}`,
        s.status,
        s.outcome === undefined ? null : JSON.stringify(s.outcome),
        s.errorCode ?? null,
        s.errorMessage ?? null,
        s.statusMessage ?? null,
        now,
        id,
        owner ?? null,
      );
    },
    ...sqliteTaskResume(db, one),
    async cancelTask(agent, id, message, now) {
      const cancelled = one(
        `UPDATE tasks SET status = 'cancelled', status_message = ?, input = '{}', updated_at = ?
         WHERE id = ? AND agent = ? AND status = 'working' AND expires_at > ? RETURNING ${TASK_COLUMNS}`,
        message,
        now,
        id,
        agent,
        now,
      );
      if (cancelled !== null) return { row: cancelled, cancelled: true };
      const row = await tasks.getTask(agent, id, now);
      return row === null ? null : { row, cancelled: false };
    },
    async failStaleTasks(staleBefore, maxAttempts, code, message, now) {
      const rows = db
        .prepare(
          `UPDATE tasks SET status = 'failed', error_code = ?, error_message = ?, status_message = ?,
             input = '{}', updated_at = ?
           WHERE status = 'working' AND replica IS NOT NULL AND beat_at < ?
             AND (resumable = 0 OR attempts >= ?)
           RETURNING id, agent, tool_name, attempts`,
        )
        .all(code, message, message, now, staleBefore, maxAttempts) as Row[];
      return rows.map((r) => ({
        id: String(r.id),
        agent: String(r.agent),
        toolName: String(r.tool_name),
        attempts: Number(r.attempts),
      }));
    },
    async countQueuedTasks() {
      const row = db
        .prepare(`SELECT count(*) AS n FROM tasks WHERE status = 'working' AND replica IS NULL`)
        .get() as Row;
      return Number(row.n);
    },
    async pruneTasks(now) {
      return Number(db.prepare("DELETE FROM tasks WHERE expires_at <= ?").run(now).changes);
    },
  };
  return { tasks };
}
