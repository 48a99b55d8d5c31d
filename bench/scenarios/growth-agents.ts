// Row 12: one tool call as the number of agents in the store grows (1, 100, 1,000; 1 and 20 under
// --quick). One host (workers sandbox, SQLite, audit on); each agent is made as an operator makes
// one (created, the bench plugin's tools enabled, a token issued, a secret set), so every table a
// call reads grows with it. The first agent calls bench:echo over MCP HTTP (2026-07-28, the
// request replayed without a client, lib/mcp-raw.ts) at each size, and so does the newest agent.
// Target: flat, or no faster than log n.
import { startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { curveRows, startGrowthHost } from "../lib/growth.ts";
import { rawMcp } from "../lib/mcp-raw.ts";
import { buildBenchPlugin } from "../lib/plugin.ts";
import type { Row } from "../lib/report.ts";
import { sample, summarize } from "../lib/stats.ts";

export async function growthAgents(quick: boolean): Promise<Row[]> {
  const sizes = quick ? [1, 20] : [1, 100, 1000];
  const iterations = quick ? 20 : 1500;
  const plugin = await buildBenchPlugin("bench", "1.0.0", 0);
  const tools = Object.fromEntries(plugin.manifest.tools.map((t) => [`bench:${t.name}`, true]));
  const bench = await startGrowthHost([{ ...plugin, ids: Object.keys(tools) }]);
  const admin = await startAdminServer(bench.host, { port: 0, log: () => undefined });
  const first: Array<{ n: number; s: ReturnType<typeof summarize> }> = [];
  const newest: typeof first = [];
  const tokens: string[] = [];
  const addAgent = async (i: number) => {
    const slug = `agent-${i}`;
    await bench.host.createAgent(slug);
    await bench.host.setToolsEnabled(slug, tools);
    await bench.host.setSecrets(slug, { bench_key: `value-${i}` });
    tokens.push((await bench.host.issueToken("agent", slug, "bench")).token);
  };
  const callAs = async (i: number) => {
    const mcp = await rawMcp(admin.mcpUrl(`agent-${i}`), tokens[i] as string, "bench__echo");
    const call = async () => {
      const result = await mcp.send("tools/call", { name: "bench__echo", arguments: { text: "hi" } });
      if (result.isError === true) throw new Error(`bench__echo failed: ${JSON.stringify(result.content)}`);
    };
    const s = summarize(await sample(iterations, call, quick ? 10 : iterations));
    await mcp.close();
    return s;
  };
  try {
    for (const n of sizes) {
      for (let i = tokens.length; i < n; i++) await addAgent(i);
      first.push({ n, s: await callAs(0) });
      newest.push({ n, s: await callAs(n - 1) });
    }
  } finally {
    await admin.close();
    await bench.close();
  }
  const chart = { chart: "agents", title: "a tool call over MCP HTTP against the agents in the store" };
  const unit = "µs";
  return [
    ...curveRows(
      "12",
      { ...chart, series: "the first agent calls", what: "tools/call over MCP HTTP, the first agent", unit },
      first,
    ),
    ...curveRows(
      "12",
      {
        ...chart,
        series: "the newest agent calls",
        what: "tools/call over MCP HTTP, the newest agent",
        unit,
      },
      newest,
    ),
  ];
}
