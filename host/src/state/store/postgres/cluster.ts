// Store.cluster for PostgreSQL: heartbeats, approvals, host-event fan-out and plugin packages
// as rows; NOTIFY on one channel per schema as the wake-up (store/cluster-types.ts).
// Invariants: a signal is a small JSON object and never the only copy of a state change (the
// row is written first, in its own statement, then the NOTIFY is sent); settling an approval is
// one `UPDATE … WHERE status = ANY(from)`, so of two racing decisions exactly one wins.
import type {
  ApprovalRow,
  ClusterSignal,
  ClusterStore,
  HostEventRow,
  PluginPackageRow,
} from "../cluster-types.ts";
import type { Db, Row } from "./db.ts";
import { type ListenConfig, listenOn } from "./listen.ts";

/** The NOTIFY channel of a schema: replicas of one schema share it, other schemas never see it. */
export function channelOf(schema: string | undefined): string {
  return `airlock_${schema ?? "public"}`.slice(0, 63);
}

const approvalOf = (r: Row): ApprovalRow => ({
  id: String(r.id),
  runId: String(r.run_id),
  agent: String(r.agent),
  toolName: String(r.tool_name),
  input: r.input as Record<string, unknown>,
  requestedAt: String(r.requested_at),
  replica: String(r.replica),
  status: r.status as ApprovalRow["status"],
  reason: r.reason === null ? null : String(r.reason),
});

export function postgresCluster(db: Db, connection: ListenConfig, schema: string | undefined): ClusterStore {
  const channel = channelOf(schema);
  return {
    async notify(signal: ClusterSignal) {
      await db.query("SELECT pg_notify($1, $2)", [channel, JSON.stringify(signal)]);
    },
    listen: (handlers) => listenOn(connection, channel, handlers),

    async heartbeat(replica, streams, staleMs) {
      const rows = await db.query(
        `WITH me AS (
           INSERT INTO replicas (id, streams) VALUES ($1, $2)
           ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), stopped_at = NULL, streams = $2
         )
         SELECT coalesce(sum(streams), 0)::int AS n FROM replicas
          WHERE id <> $1 AND stopped_at IS NULL
            AND heartbeat_at > now() - make_interval(secs => $3::double precision / 1000)`,
        [replica, streams, staleMs],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async stopReplica(replica) {
      await db.query("UPDATE replicas SET stopped_at = now() WHERE id = $1", [replica]);
    },
    async abandonOrphanedApprovals(staleMs) {
      const rows = await db.query(
        `UPDATE approvals a
            SET status = 'abandoned', decided_at = now(),
                reason = 'replica ' || a.replica || CASE WHEN r.stopped_at IS NOT NULL
                  THEN ' stopped while the call waited' ELSE ' stopped answering (no heartbeat for '
                  || $1::text || ' ms) while the call waited' END
           FROM replicas r
          WHERE a.status IN ('pending', 'approving') AND r.id = a.replica
            AND (r.stopped_at IS NOT NULL OR r.heartbeat_at < now() - make_interval(secs => $1::double precision / 1000))
        RETURNING a.id`,
        [staleMs],
      );
      return rows.map((r) => String(r.id));
    },

    async insertApproval(row) {
      await db.query(
        `INSERT INTO approvals (id, run_id, agent, tool_name, input, requested_at, replica, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending')`,
        [row.id, row.runId, row.agent, row.toolName, JSON.stringify(row.input), row.requestedAt, row.replica],
      );
    },
    async settleApproval(id, status, reason, from = ["pending", "approving"]) {
      const rows = await db.query(
        `UPDATE approvals SET status = $2, reason = $3, decided_at = now()
          WHERE id = $1 AND status = ANY($4::text[]) RETURNING *`,
        [id, status, reason, [...from]],
      );
      return rows[0] === undefined ? null : approvalOf(rows[0]);
    },
    async getApproval(id) {
      const rows = await db.query("SELECT * FROM approvals WHERE id = $1", [id]);
      return rows[0] === undefined ? null : approvalOf(rows[0]);
    },
    async getApprovalLiveness(id, staleMs) {
      const rows = await db.query(
        `SELECT a.*, coalesce(r.stopped_at IS NULL AND r.heartbeat_at > now() - make_interval(secs =>
                $2::double precision / 1000), false) AS alive
           FROM approvals a LEFT JOIN replicas r ON r.id = a.replica WHERE a.id = $1`,
        [id, staleMs],
      );
      return rows[0] === undefined ? null : { row: approvalOf(rows[0]), alive: rows[0].alive === true };
    },
    async deleteSettledApproval(id) {
      const rows = await db.query(
        "DELETE FROM approvals WHERE id = $1 AND status NOT IN ('pending', 'approving') RETURNING *",
        [id],
      );
      return rows[0] === undefined ? null : approvalOf(rows[0]);
    },
    async listPendingApprovals(agent) {
      const rows =
        agent === undefined
          ? await db.query("SELECT * FROM approvals WHERE status = 'pending' ORDER BY requested_at, id")
          : await db.query(
              "SELECT * FROM approvals WHERE status = 'pending' AND agent = $1 ORDER BY requested_at, id",
              [agent],
            );
      return rows.map(approvalOf);
    },
    async countPendingApprovals() {
      const rows = await db.query("SELECT count(*)::int AS n FROM approvals WHERE status = 'pending'");
      return Number(rows[0]?.n ?? 0);
    },

    async appendEvents(events) {
      if (events.length === 0) return;
      const values: unknown[] = [];
      const tuples = events.map((e, i) => {
        values.push(e.replica, e.type, e.agent, JSON.stringify(e.body));
        return `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`;
      });
      await db.query(
        `INSERT INTO host_events (replica, type, agent, body) VALUES ${tuples.join(", ")}`,
        values,
      );
    },
    async readEvents(after, exclude, limit) {
      const rows = await db.query(
        "SELECT id, replica, type, agent, body FROM host_events WHERE id > $1 AND replica <> $2 ORDER BY id LIMIT $3",
        [after, exclude, limit],
      );
      return rows.map(
        (r): HostEventRow => ({
          id: Number(r.id),
          replica: String(r.replica),
          type: String(r.type),
          agent: r.agent === null ? null : String(r.agent),
          body: r.body as Record<string, unknown>,
        }),
      );
    },
    async lastEventId() {
      const rows = await db.query("SELECT coalesce(max(id), 0)::bigint AS id FROM host_events");
      return Number(rows[0]?.id ?? 0);
    },
    async pruneEvents(maxAgeMs) {
      return db.exec(
        "DELETE FROM host_events WHERE at < now() - make_interval(secs => $1::double precision / 1000)",
        [maxAgeMs],
      );
    },

    async putPluginPackage(row: PluginPackageRow) {
      await db.query(
        `INSERT INTO plugin_packages (integrity, bytes, signatures) VALUES ($1, $2, $3)
         ON CONFLICT (integrity) DO NOTHING`,
        [row.integrity, Buffer.from(row.bytes), JSON.stringify(row.signatures)],
      );
    },
    async getPluginPackage(integrity) {
      const rows = await db.query(
        "SELECT integrity, bytes, signatures FROM plugin_packages WHERE integrity = $1",
        [integrity],
      );
      const r = rows[0];
      if (r === undefined) return null;
      return {
        integrity: String(r.integrity),
        bytes: new Uint8Array(r.bytes as Buffer),
        signatures: r.signatures as PluginPackageRow["signatures"],
      };
    },
  };
}
