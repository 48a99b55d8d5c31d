// Row 13: the console's audit query and the audit export as the trail grows (10^4, 10^5, 10^6
// entries; 10^3 and 3·10^3 under --quick), on SQLite and on PostgreSQL (a fresh schema) when it
// answers. The trail is filled in bulk (lib/audit-fill.ts) under a real host; each query goes
// through the admin API in-process (`GET /api/audit`, an operator token), as the console asks it:
// the newest 500, then the same filtered by agent, by kind (admin), by plugin and tool (each 5 % of
// the rows, so every page is full at 10^4), since and until mid-trail, and by a time window (500
// entries, mid-trail). The export (`GET
// /api/audit/export`, CSV and JSON, every entry) is judged per entry. Target: flat, or no faster
// than log n (per entry for the export).
import { createAdminApi } from "../../host/src/surfaces/http/app.ts";
import { fillPostgresAudit, fillSqliteAudit, fillTime } from "../lib/audit-fill.ts";
import { curveRows, type StoreUnderTest, startGrowthHost, storesUnderTest } from "../lib/growth.ts";
import type { Row } from "../lib/report.ts";
import { sample, summarize } from "../lib/stats.ts";

type Point = { n: number; s: ReturnType<typeof summarize> };

/** The console's queries (views/audit.js asks for 500), by name; `mid` is the filled trail's middle row. */
const QUERIES: Record<string, (mid: number) => string> = {
  "newest 500": () => "limit=500",
  "agent filter": () => "limit=500&agent=agent-7",
  "kind filter (admin)": () => "limit=500&kind=admin",
  "since mid-trail": (mid) => `limit=500&since=${encodeURIComponent(fillTime(mid))}`,
  "until mid-trail": (mid) => `limit=500&until=${encodeURIComponent(fillTime(mid))}`,
  "plugin and tool filter": () => "limit=500&plugin=plug-3&tool=t3",
  "time window (500 entries)": (mid) =>
    `limit=500&since=${encodeURIComponent(fillTime(mid - 250))}&until=${encodeURIComponent(fillTime(mid + 249))}`,
};

async function measureStore(
  target: StoreUnderTest,
  sizes: readonly number[],
  quick: boolean,
): Promise<Map<string, Point[]>> {
  const bench = await startGrowthHost([], target.store === undefined ? {} : { store: target.store });
  const curves = new Map<string, Point[]>();
  const add = (name: string, point: Point) => curves.set(name, [...(curves.get(name) ?? []), point]);
  try {
    const app = createAdminApi(bench.host, { log: () => undefined });
    const { token } = await bench.host.issueToken("operator", undefined, "bench");
    const get = async (path: string) => {
      const response = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.text();
    };
    let filled = 0;
    for (const n of sizes) {
      if (target.store === undefined) fillSqliteAudit(bench.dataDir, filled + 1, n);
      else await fillPostgresAudit(target.store.url, target.store.schema, filled + 1, n);
      filled = n;
      for (const [name, query] of Object.entries(QUERIES)) {
        const path = `/api/audit?${query(Math.floor(n / 2))}`;
        const check = JSON.parse(await get(path)) as { entries: unknown[] };
        if (check.entries.length === 0) throw new Error(`${path} found nothing`);
        add(name, { n, s: summarize(await sample(quick ? 3 : 60, () => get(path), quick ? 1 : 5)) });
      }
      for (const format of ["csv", "json"]) {
        const path = `/api/audit/export?format=${format}&since=${encodeURIComponent(fillTime(0))}&until=${encodeURIComponent(fillTime(n))}`;
        const times = n >= 1e6 ? 2 : quick ? 1 : 5;
        let text = "";
        const s = summarize(
          await sample(
            times,
            async () => {
              text = await get(path);
            },
            n >= 1e6 || quick ? 0 : 1,
          ),
        );
        // the filled rows (the host's own entries are stamped now, after `until`)
        const entries = format === "csv" ? text.split("\r\n").length - 2 : text.split("\n{").length - 1;
        if (entries !== n) throw new Error(`the ${format} export held ${entries} entries, expected ${n}`);
        add(`export ${format}`, { n, s });
      }
    }
  } finally {
    await bench.close();
  }
  return curves;
}

export async function growthAudit(quick: boolean): Promise<Row[]> {
  const sizes = quick ? [1e3, 3e3] : [1e4, 1e5, 1e6];
  const rows: Row[] = [];
  for (const target of await storesUnderTest()) {
    const curves = await measureStore(target, sizes, quick);
    for (const [name, points] of curves) {
      const exporting = name.startsWith("export");
      rows.push(
        ...curveRows(
          "13",
          {
            chart: exporting ? "audit-export" : "audit-query",
            title: exporting
              ? "the audit export (GET /api/audit/export) against the audit trail, per entry"
              : "the console's audit query (GET /api/audit, 500 a page) against the entries in the trail",
            series: `${target.name}: ${name}${exporting ? ", per entry" : ""}`,
            what: `audit ${exporting ? "" : "query, "}${name} (${target.name})`,
            unit: "µs",
            ...(exporting ? { perItem: true } : {}),
          },
          points,
        ),
      );
    }
  }
  return rows;
}
