// Row 11: tools/list as the number of tools an agent has enabled grows (10, 100, 1,000; 10 and
// 100 under --quick). One host (workers sandbox, SQLite), plugins of 250 tools each (a manifest
// holds at most 256), one agent per size with that many tools enabled; each agent lists over MCP
// HTTP (2026-07-28), the request replayed without a client (lib/mcp-raw.ts). Two curves: the
// first page (the server answers 100 tools a page, so this should stay flat past 100) and the
// whole listing followed cursor by cursor (it holds n tools: judged per tool, flat).
import { startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { buildToolsPlugin, curveRows, startGrowthHost } from "../lib/growth.ts";
import { rawMcp } from "../lib/mcp-raw.ts";
import type { Row } from "../lib/report.ts";
import { sample, summarize } from "../lib/stats.ts";

const PER_PLUGIN = 250;

export async function growthToolsList(quick: boolean): Promise<Row[]> {
  const sizes = quick ? [10, 100] : [10, 100, 1000];
  const iterations = quick ? 10 : 300;
  const largest = sizes.at(-1) as number;
  const plugins = [];
  for (let i = 0; i * PER_PLUGIN < largest; i++) {
    plugins.push(
      await buildToolsPlugin(`grow${i}`, Math.min(PER_PLUGIN, largest - i * PER_PLUGIN), { readOnly: true }),
    );
  }
  const ids = plugins.flatMap((p) => p.ids);
  const bench = await startGrowthHost(plugins);
  const admin = await startAdminServer(bench.host, { port: 0, log: () => undefined });
  const firstPage = [];
  const wholeListing = [];
  try {
    for (const n of sizes) {
      const agent = `tools-${n}`;
      await bench.host.createAgent(agent);
      await bench.host.setToolsEnabled(agent, Object.fromEntries(ids.slice(0, n).map((id) => [id, true])));
      const { token } = await bench.host.issueToken("agent", agent, "bench");
      const mcp = await rawMcp(admin.mcpUrl(agent), token);
      let listed = 0;
      const all = async () => {
        listed = 0;
        let cursor: string | undefined;
        do {
          const page = await mcp.send("tools/list", cursor === undefined ? {} : { cursor });
          listed += (page.tools as unknown[]).length;
          cursor = page.nextCursor as string | undefined;
        } while (cursor !== undefined);
      };
      await all();
      if (listed !== n) throw new Error(`agent ${agent} listed ${listed} tools, expected ${n}`);
      firstPage.push({ n, s: summarize(await sample(iterations, () => mcp.send("tools/list", {}))) });
      wholeListing.push({
        n,
        s: summarize(await sample(Math.max(5, Math.round(iterations / (n / 10))), all)),
      });
      await mcp.close();
    }
  } finally {
    await admin.close();
    await bench.close();
  }
  const chart = {
    chart: "tools-list",
    title: "tools/list over MCP HTTP against the tools an agent has enabled",
  };
  return [
    ...curveRows(
      "11",
      {
        ...chart,
        series: "first page (100 tools a page)",
        what: "tools/list over MCP HTTP, first page",
        unit: "µs",
      },
      firstPage,
    ),
    ...curveRows(
      "11",
      {
        ...chart,
        series: "whole listing (every page), per tool",
        what: "tools/list over MCP HTTP, whole listing (every page)",
        unit: "µs",
        perItem: true,
      },
      wholeListing,
    ),
  ];
}
