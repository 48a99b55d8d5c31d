// The audit routes: the query, newest first, paged with `before` (the id of the oldest entry
// seen); and the export, every entry the filters select as CSV or JSON, streamed newest first.
// Invariants: the export reads the trail a page at a time with `before` (each page one indexed
// read, whatever the trail's size; it never holds more than a page), so an export of 10^6
// entries costs the same per entry as one of 10^4 (bench row 13); a CSV cell a spreadsheet
// would read as a formula is written with a leading `'`.

import type { AuditQuery, AuditRecord } from "../../../contracts/records.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { auditExportQuery, auditQuery, auditResponse } from "../schemas.ts";

export const DEFAULT_AUDIT_LIMIT = 100;
/** Entries the export reads from the store at a time (the store's largest page). */
const EXPORT_PAGE = 1000;

type Filters = Pick<AuditQuery, "agent" | "plugin" | "tool" | "kind" | "since" | "until">;

type FilterInput = { [K in keyof Filters]?: Filters[K] | undefined };

function filtersOf(query: FilterInput): Filters {
  const q: Filters = {};
  if (query.agent !== undefined) q.agent = query.agent;
  if (query.plugin !== undefined) q.plugin = query.plugin;
  if (query.tool !== undefined) q.tool = query.tool;
  if (query.kind !== undefined) q.kind = query.kind;
  if (query.since !== undefined) q.since = new Date(query.since).toISOString();
  if (query.until !== undefined) q.until = new Date(query.until).toISOString();
  return q;
}

const CSV_COLUMNS = [
  "id",
  "at",
  "agent",
  "plugin",
  "tool",
  "conversationId",
  "kind",
  "action",
  "allowed",
  "success",
  "error",
  "durationMs",
  "details",
] as const;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (e: AuditRecord) => `${CSV_COLUMNS.map((c) => csvCell(e[c])).join(",")}\r\n`;

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
      const q: AuditQuery = { limit, ...filtersOf(query) };
      if (query.before !== undefined) q.before = query.before;
      const entries = await host.queryAudit(q);
      const last = entries[entries.length - 1];
      const nextBefore = entries.length === limit && last !== undefined ? last.id : null;
      return { json: { entries, nextBefore } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/audit/export",
    operationId: "exportAudit",
    summary:
      "Every audit entry the filters select (agent, plugin, tool, kind, time), newest first, " +
      "as CSV (one header line, RFC 4180) or as one JSON array, streamed.",
    tag: "audit",
    access: "operator",
    query: auditExportQuery,
    responses: {
      200: { description: "The entries as text/csv or application/json.", mediaType: "text/csv" },
    },
    async handler({ host, query }) {
      const filters = filtersOf(query);
      const csv = query.format === "csv";
      let before: number | undefined;
      let first = true;
      let done = false;
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (done) return;
          const page = await host.queryAudit({
            ...filters,
            limit: EXPORT_PAGE,
            ...(before === undefined ? {} : { before }),
          });
          let text = first ? (csv ? `${CSV_COLUMNS.join(",")}\r\n` : "[") : "";
          for (const entry of page) {
            text += csv ? csvLine(entry) : `${first ? "" : ","}\n${JSON.stringify(entry)}`;
            first = false;
          }
          before = page.at(-1)?.id;
          if (page.length < EXPORT_PAGE) {
            done = true;
            if (!csv) text += "\n]\n";
            controller.enqueue(encoder.encode(text));
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(text));
        },
      });
      const stamp = new Date().toISOString().replaceAll(":", "-");
      return new Response(body, {
        headers: {
          "content-type": csv ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
          "content-disposition": `attachment; filename="airlock-audit-${stamp}.${query.format}"`,
        },
      });
    },
  }),
];
