// PostgreSQL: the task rows (store/task-types.ts), shared by every replica. Every state change
// is one conditional UPDATE … RETURNING, so of two replicas racing (a cancel through one, the
// result on another, two sweeps resuming a dead replica's task) exactly one changes the row.
import { TASK_COLUMNS, taskFromRow } from "../task-rows.ts";
import type { StaleTask, TaskStore } from "../task-types.ts";
import type { Db } from "./db.ts";

export function postgresTasks(db: Db): { tasks: TaskStore } {
  const one = async (sql: string, params: unknown[]) => {
    const rows = await db.query(sql, params);
    return rows[0] === undefined ? null : taskFromRow(rows[0]);
  };
  const tasks: TaskStore = {
    async insertTask(t) {
      await db.exec(
        `INSERT INTO tasks (id, agent, tool_name, conversation_id, input, options, status, created_at, updated_at, ttl_ms, expires_at, resumable)
         VALUES ($1, $2, $3, $4, $5, $6, 'working', $7, $7, $8, $9, $10)`,
        [
          t.id,
          t.agent,
          t.toolName,
          t.conversationId,
          JSON.stringify(t.input),
          JSON.stringify(t.options),
          t.createdAt,
          t.ttlMs,
          t.createdAt + t.ttlMs,
          t.resumable,
        ],
      );
    },
    getTask: (agent, id, now) =>
      one(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = $1 AND agent = $2 AND expires_at > $3`, [
        id,
        agent,
        now,
      ]),
    async listTasks(agent, now, after, limit) {
      const rows =
        after === null
          ? await db.query(
              `SELECT ${TASK_COLUMNS} FROM tasks WHERE agent = $1 AND expires_at > $2
               ORDER BY created_at DESC, id DESC LIMIT $3`,
              [agent, now, limit],
            )
          : await db.query(
              `SELECT ${TASK_COLUMNS} FROM tasks WHERE agent = $1 AND expires_at > $2
                 AND (created_at, id) < ($3, $4)
               ORDER BY created_at DESC, id DESC LIMIT $5`,
              [agent, now, after.createdAt, after.id, limit],
            );
      return rows.map(taskFromRow);
    },
    claimTask: (id, replica, now) =>
      one(
        `UPDATE tasks SET replica = $1, beat_at = $2, updated_at = $2
         WHERE id = $3 AND status = 'working' AND replica IS NULL AND expires_at > $2
         RETURNING ${TASK_COLUMNS}`,
        [replica, now, id],
      ),
    async beatTasks(ids, replica, now) {
      if (ids.length === 0) return [];
      const rows = await db.query(
        "UPDATE tasks SET beat_at = $1 WHERE id = ANY($2) AND replica = $3 RETURNING id, status",
        [now, [...ids], replica],
      );
      return rows.map((r) => ({ id: String(r.id), status: String(r.status) as "working" }));
    },
    settleTask: (id, s, now, owner) =>
      one(
        `UPDATE tasks SET status = $1, outcome = $2, error_code = $3, error_message = $4, status_message = $5,
           input = '{}', updated_at = $6
         WHERE id = $7 AND status = 'working' AND ($8::text IS NULL OR replica = $8::text)
         RETURNING ${TASK_COLUMNS}`,
        [
          s.status,
          s.outcome === undefined ? null : JSON.stringify(s.outcome),
          s.errorCode ?? null,
          s.errorMessage ?? null,
          s.statusMessage ?? null,
          now,
          id,
          owner ?? null,
        ],
      ),
    async noteTaskProgress(id, replica, message, now) {
      const n = await db.exec(
        "UPDATE tasks SET status_message = $1, updated_at = $2 WHERE id = $3 AND replica = $4 AND status = 'working'",
        [message, now, id, replica],
      );
      return n > 0;
    },
    async staleResumableTasks(staleBefore, maxAttempts, limit, now) {
      const rows = await db.query(
        `SELECT id, replica, attempts FROM tasks
         WHERE status = 'working' AND resumable AND replica IS NOT NULL AND beat_at < $1
           AND attempts < $2 AND expires_at > $3
         ORDER BY beat_at, id LIMIT $4`,
        [staleBefore, maxAttempts, now, limit],
      );
      return rows.map(
        (r): StaleTask => ({ id: String(r.id), replica: String(r.replica), attempts: Number(r.attempts) }),
      );
    },
    resumeTask: (stale, staleBefore, replica, message, now) =>
      one(
        `UPDATE tasks SET replica = $1, beat_at = $2, updated_at = $2, attempts = attempts + 1, status_message = $3
         WHERE id = $4 AND status = 'working' AND resumable AND replica = $5 AND beat_at < $6
           AND attempts = $7 AND expires_at > $2
         RETURNING ${TASK_COLUMNS}`,
        [replica, now, message, stale.id, stale.replica, staleBefore, stale.attempts],
      ),
    async cancelTask(agent, id, message, now) {
      const cancelled = await one(
        `UPDATE tasks SET status = 'cancelled', status_message = $1, input = '{}', updated_at = $2
         WHERE id = $3 AND agent = $4 AND status = 'working' AND expires_at > $2 RETURNING ${TASK_COLUMNS}`,
        [message, now, id, agent],
      );
      if (cancelled !== null) return { row: cancelled, cancelled: true };
      const row = await tasks.getTask(agent, id, now);
      return row === null ? null : { row, cancelled: false };
    },
    async failStaleTasks(staleBefore, maxAttempts, code, message, now) {
      const rows = await db.query(
        `UPDATE tasks SET status = 'failed', error_code = $1, error_message = $2, status_message = $2,
           input = '{}', updated_at = $3
         WHERE status = 'working' AND replica IS NOT NULL AND beat_at < $4
           AND (NOT resumable OR attempts >= $5)
         RETURNING id, agent, tool_name, attempts`,
        [code, message, now, staleBefore, maxAttempts],
      );
      return rows.map((r) => ({
        id: String(r.id),
        agent: String(r.agent),
        toolName: String(r.tool_name),
        attempts: Number(r.attempts),
      }));
    },
    async countQueuedTasks() {
      const rows = await db.query(
        "SELECT count(*) AS n FROM tasks WHERE status = 'working' AND replica IS NULL",
      );
      return Number(rows[0]?.n ?? 0);
    },
    pruneTasks: (now) => db.exec("DELETE FROM tasks WHERE expires_at <= $1", [now]),
  };
  return { tasks };
}
