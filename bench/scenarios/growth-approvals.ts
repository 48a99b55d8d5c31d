// Row 15: listing the pending approvals as they grow (100, 1,000, 10,000; 10 and 100 under
// --quick), on SQLite (the one-process registry) and on PostgreSQL (the approvals table replicas
// share) in a fresh schema when it answers. Each approval is a real call waiting for an operator:
// a tool that is not read-only, called through the pipeline of a host without auto-approval. The
// listing is `GET /api/approvals` through the admin API in-process (an operator token), as the
// console and the people pages ask it. It answers every pending approval (it has no page), so it
// is judged per approval.
import { createAdminApi } from "../../host/src/surfaces/http/app.ts";
import { buildToolsPlugin, curveRows, startGrowthHost, storesUnderTest } from "../lib/growth.ts";
import type { Row } from "../lib/report.ts";
import { sample, summarize } from "../lib/stats.ts";

export async function growthApprovals(quick: boolean): Promise<Row[]> {
  const sizes = quick ? [10, 100] : [100, 1000, 10_000];
  const plugin = await buildToolsPlugin("act", 1, { readOnly: false });
  const rows: Row[] = [];
  for (const target of await storesUnderTest()) {
    const bench = await startGrowthHost([plugin], target.store === undefined ? {} : { store: target.store });
    const points: Array<{ n: number; s: ReturnType<typeof summarize> }> = [];
    const waiting: Array<Promise<unknown>> = [];
    try {
      const { host } = bench;
      await host.createAgent("bench");
      await host.setToolsEnabled("bench", { "act:t0": true });
      const run = await host.startRun({ agent: "bench", conversationId: "c1" });
      const app = createAdminApi(host, { log: () => undefined });
      const { token } = await host.issueToken("operator", undefined, "bench");
      const list = async () => {
        const response = await app.request("/api/approvals", {
          headers: { authorization: `Bearer ${token}` },
        });
        return (JSON.parse(await response.text()) as { approvals: unknown[] }).approvals.length;
      };
      for (const n of sizes) {
        while (waiting.length < n) {
          waiting.push(
            run.call("act:t0", { text: `call ${waiting.length}`, times: null }).catch(() => undefined),
          );
          // a few at a time, so the pipeline is not handed 10,000 calls in one tick
          if (waiting.length % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        for (let tries = 0; (await host.listApprovals()).length < n; tries++) {
          if (tries > 600) throw new Error(`${n} approvals never pending`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        if ((await list()) !== n) throw new Error(`GET /api/approvals did not list ${n}`);
        points.push({ n, s: summarize(await sample(quick ? 5 : n >= 10_000 ? 30 : 100, list, 2)) });
      }
    } finally {
      await bench.close();
      await Promise.all(waiting);
    }
    rows.push(
      ...curveRows(
        "15",
        {
          chart: "approvals",
          title: "GET /api/approvals against the approvals pending, per approval listed",
          series: `${target.name}: every pending approval, per approval`,
          what: `GET /api/approvals, every pending approval (${target.name})`,
          unit: "µs",
          perItem: true,
        },
        points,
      ),
    );
  }
  return rows;
}
