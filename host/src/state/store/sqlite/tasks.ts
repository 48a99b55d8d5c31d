// SQLite: the task rows (store/task-types.ts). Every state change is one conditional UPDATE …
// RETURNING, so two processes sharing the file cannot both settle, claim or cancel a task.
import type { DatabaseSync } from "node:sqlite";
import { TASK_COLUMNS, taskFromRow } from "../task-rows.ts";
import type { TaskStore } from "../task-types.ts";

type Row = Record<string, unknown>;

export function sqliteTasks(db: DatabaseSync): { tasks: TaskStore } {
  const one = (sql: string, ...params: Array<string | number | null>) => {
    const row = db.prepare(sql).get(...params) as Row | undefined;
    return row === undefined ? null : taskFromRow(row);
  };
  const tasks: TaskStore = {
    async insertTask(t) {
      db.prepare(
        `INSERT INTO tasks (id, agent, tool_name, conversation_id, input, options, status, created_at, updated_at, ttl_ms, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, 'working', ?, ?, ?, ?)`,
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
    async beatTasks(ids, now) {
      if (ids.length === 0) return [];
      const rows = db
        .prepare(
          `UPDATE tasks SET beat_at = ? WHERE id IN (SELECT value FROM json_each(?)) RETURNING id, status`,
        )
        .all(now, JSON.stringify(ids)) as Row[];
      return rows.map((r) => ({ id: String(r.id), status: String(r.status) as "working" }));
    },
    async settleTask(id, s, now) {
      return one(
        `UPDATE tasks SET status = ?, outcome = ?, error_code = ?, error_message = ?, status_message = ?,
           input = '{}', updated_at = ?
         WHERE id = ? AND status = 'working' RETURNING ${TASK_COLUMNS}`,
        s.status,
        s.outcome === undefined ? null : JSON.stringify(s.outcome),
        s.errorCode ?? null,
        s.errorMessage ?? null,
        s.statusMessage ?? null,
        now,
        id,
      );
    },
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
    async failStaleTasks(staleBefore, code, message, now) {
      const rows = db
        .prepare(
          `UPDATE tasks SET status = 'failed', error_code = ?, error_message = ?, status_message = ?,
             input = '{}', updated_at = ?
           WHERE status = 'working' AND replica IS NOT NULL AND beat_at < ? RETURNING id`,
        )
        .all(code, message, message, now, staleBefore) as Row[];
      return rows.map((r) => String(r.id));
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
