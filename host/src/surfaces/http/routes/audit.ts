// The audit query route: newest first, paged with `before` (the id of the oldest entry seen).

import type { AuditQuery } from "../../../contracts/records.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { auditQuery, auditResponse } from "../schemas.ts";

export const DEFAULT_AUDIT_LIMIT = 100;

export const auditRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/audit",
    operationId: "queryAudit",
    summary:
      "Audit entries, newest first, filtered by agent, plugin, tool, kind and time (ISO 8601); " +
      "page with `before` = the previous page's `nextBefore`.",
    tag: "audit",
    access: "operator",
    query: auditQuery,
    responses: { 200: { description: "One page of entries.", schema: auditResponse } },
    async handler({ host, query }) {
      const limit = query.limit ?? DEFAULT_AUDIT_LIMIT;
      const q: AuditQuery = { limit };
      if (query.agent !== undefined) q.agent = query.agent;
      if (query.plugin !== undefined) q.plugin = query.plugin;
      if (query.tool !== undefined) q.tool = query.tool;
      if (query.kind !== undefined) q.kind = query.kind;
      if (query.since !== undefined) q.since = new Date(query.since).toISOString();
      if (query.until !== undefined) q.until = new Date(query.until).toISOString();
      if (query.before !== undefined) q.before = query.before;
      const entries = await host.queryAudit(q);
      const last = entries[entries.length - 1];
      const nextBefore = entries.length === limit && last !== undefined ? last.id : null;
      return { json: { entries, nextBefore } };
    },
  }),
];
