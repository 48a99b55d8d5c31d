// Row 0: the MCP front door. The same SDK client (`@modelcontextprotocol/client` v2), over the
// same transport, calls an echo tool through Airlock (its agent endpoint: auth, pipeline,
// workers sandbox, audit on) and through a bare server of the same SDK version (one `echo`
// tool, no auth), in this run. HTTP in both eras (2026-07-28 and the 2025-11-25 handshake),
// throughput with 8 and 32 concurrent clients, stdio per call, and how long `airlock mcp` takes
// from spawn to its first answer. Targets: p50 ≤ 1.25× bare over HTTP, ≤ 1.5× over stdio;
// throughput ≥ 0.8× bare; `airlock mcp` ready ≤ 300 ms after spawn.
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { startBenchHost } from "../lib/bench-host.ts";
import { startHop } from "../lib/hop.ts";
import { startBareHttp } from "../lib/mcp-bare.ts";
import { buildBenchPlugin } from "../lib/plugin.ts";
import type { Row } from "../lib/report.ts";
import { sample, summarize } from "../lib/stats.ts";

const AIRLOCK_BIN = fileURLToPath(new URL("../../host/bin/airlock.ts", import.meta.url));
const BARE_STDIO = fileURLToPath(new URL("../fixtures/mcp-bare-stdio.ts", import.meta.url));
const MODERN = { versionNegotiation: { mode: { pin: "2026-07-28" as const } } };

type Era = "2026-07-28" | "2025-11-25";

async function httpClient(url: string, era: Era, token?: string): Promise<Client> {
  const client = new Client({ name: "airlock-bench", version: "1.0.0" }, era === "2026-07-28" ? MODERN : {});
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function echo(client: Client, name: string): Promise<void> {
  const result = await client.callTool({ name, arguments: { text: "hi" } });
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
}

async function callsPerSecond(clients: Client[], name: string, total: number): Promise<number> {
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (client) => {
      while (next < total) {
        next++;
        await echo(client, name);
      }
    }),
  );
  return total / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function stdioClient(
  command: string,
  args: string[],
  era: Era,
): Promise<{ client: Client; readyMs: number }> {
  const t0 = performance.now();
  const client = new Client({ name: "airlock-bench", version: "1.0.0" }, era === "2026-07-28" ? MODERN : {});
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  await client.listTools();
  return { client, readyMs: performance.now() - t0 };
}

export async function mcpFrontDoor(quick: boolean): Promise<Row[]> {
  const n = quick ? 10 : 2000;
  const total = quick ? 40 : 4000;
  const spawns = quick ? 1 : 7;
  const plugin = await buildBenchPlugin("bench", "1.0.0", 0);
  const bench = await startBenchHost(plugin, { mode: "workers" });
  const admin = await startAdminServer(bench.host, { port: 0, log: () => undefined });
  const bare = await startBareHttp();
  // The floor: the same bare server answering through one process hop (bench/lib/hop.ts).
  const hop = startHop();
  const floor = await startBareHttp(hop);
  const rows: Row[] = [];
  try {
    const { token } = await bench.host.issueToken("agent", "bench", "bench");
    const url = admin.mcpUrl("bench");

    for (const era of ["2026-07-28", "2025-11-25"] as const) {
      const airlock = await httpClient(url, era, token);
      const baseline = await httpClient(bare.url, era);
      const floorClient = await httpClient(floor.url, era);
      // Interleaved in blocks, so drift on a shared machine touches all three alike.
      const a: number[] = [];
      const b: number[] = [];
      const h: number[] = [];
      for (let block = 0; block < 4; block++) {
        a.push(...(await sample(n / 4, () => echo(airlock, "bench__echo"))));
        b.push(...(await sample(n / 4, () => echo(baseline, "echo"))));
        h.push(...(await sample(n / 4, () => echo(floorClient, "echo"))));
      }
      const s = summarize(a);
      const base = summarize(b);
      const hopped = summarize(h);
      rows.push({
        id: "0",
        what: `MCP call over HTTP, ${era} (Airlock: auth, pipeline, workers sandbox, audit)`,
        unit: "µs",
        p50: s.p50,
        p90: s.p90,
        baseline: { what: "bare SDK v2 server, same client", p50: base.p50 },
        ratio: s.p50 / base.p50,
        target: "p50 ≤ 1.25× bare",
        met: s.p50 <= 1.25 * base.p50,
        note: `floor (bare + one process hop) ${hopped.p50.toFixed(0)} µs = ${(hopped.p50 / base.p50).toFixed(2)}× bare; Airlock ${(s.p50 / hopped.p50).toFixed(2)}× the floor`,
      });
      rows.push({
        id: "0",
        what: `floor: the bare server answering through one process hop, HTTP ${era}`,
        unit: "µs",
        p50: hopped.p50,
        p90: hopped.p90,
        baseline: { what: "bare SDK v2 server, same client", p50: base.p50 },
        ratio: hopped.p50 / base.p50,
        target: "none: what a host with one sandbox hop cannot go under",
      });
      await airlock.close();
      await baseline.close();
      await floorClient.close();
    }

    for (const concurrency of [8, 32]) {
      const airlock = await Promise.all(
        Array.from({ length: concurrency }, () => httpClient(url, "2026-07-28", token)),
      );
      const baseline = await Promise.all(
        Array.from({ length: concurrency }, () => httpClient(bare.url, "2026-07-28")),
      );
      await callsPerSecond(airlock, "bench__echo", Math.min(total, 200)); // warm-up
      await callsPerSecond(baseline, "echo", Math.min(total, 200));
      const ours = await callsPerSecond(airlock, "bench__echo", total);
      const theirs = await callsPerSecond(baseline, "echo", total);
      rows.push({
        id: "0",
        what: `MCP throughput over HTTP, ${concurrency} concurrent clients, 2026-07-28`,
        unit: "calls/s",
        p50: ours,
        baseline: { what: "bare SDK v2 server, same clients", p50: theirs },
        ratio: ours / theirs,
        target: "≥ 0.8× bare",
        met: ours >= 0.8 * theirs,
      });
      await Promise.all([...airlock, ...baseline].map((c) => c.close()));
    }

    const node = process.execPath;
    const airlockArgs = [
      "--no-node-snapshot",
      AIRLOCK_BIN,
      "mcp",
      "--agent",
      "bench",
      "--data-dir",
      bench.dataDir,
    ];
    const ready: number[] = [];
    const bareReady: number[] = [];
    const floorStdio = await stdioClient(node, [BARE_STDIO, "--hop"], "2025-11-25");
    for (let i = 0; i < spawns; i++) {
      const ours = await stdioClient(node, airlockArgs, "2025-11-25");
      ready.push(ours.readyMs * 1000);
      if (i < spawns - 1) await ours.client.close();
      const theirs = await stdioClient(node, [BARE_STDIO], "2025-11-25");
      bareReady.push(theirs.readyMs * 1000);
      if (i < spawns - 1) {
        await theirs.client.close();
        continue;
      }
      const sa: number[] = [];
      const sb: number[] = [];
      const sh: number[] = [];
      for (let block = 0; block < 4; block++) {
        sa.push(...(await sample(n / 4, () => echo(ours.client, "bench__echo"))));
        sb.push(...(await sample(n / 4, () => echo(theirs.client, "echo"))));
        sh.push(...(await sample(n / 4, () => echo(floorStdio.client, "echo"))));
      }
      const a = summarize(sa);
      const b = summarize(sb);
      const fh = summarize(sh);
      rows.push({
        id: "0",
        what: "MCP call over stdio, 2025-11-25 (airlock mcp, workers sandbox, audit)",
        unit: "µs",
        p50: a.p50,
        p90: a.p90,
        baseline: { what: "bare SDK v2 stdio server, same client", p50: b.p50 },
        ratio: a.p50 / b.p50,
        target: "p50 ≤ 1.5× bare",
        met: a.p50 <= 1.5 * b.p50,
        note: `floor (bare + one process hop) ${fh.p50.toFixed(0)} µs = ${(fh.p50 / b.p50).toFixed(2)}× bare; Airlock ${(a.p50 / fh.p50).toFixed(2)}× the floor`,
      });
      rows.push({
        id: "0",
        what: "floor: the bare stdio server answering through one process hop",
        unit: "µs",
        p50: fh.p50,
        p90: fh.p90,
        baseline: { what: "bare SDK v2 stdio server, same client", p50: b.p50 },
        ratio: fh.p50 / b.p50,
        target: "none: what a host with one sandbox hop cannot go under",
      });
      await floorStdio.client.close();
      await ours.client.close();
      await theirs.client.close();
    }
    const r = summarize(ready);
    const br = summarize(bareReady);
    rows.push({
      id: "0",
      what: "airlock mcp: spawn to first tools/list answer",
      unit: "ms",
      p50: r.p50 / 1000,
      p90: r.p90 / 1000,
      baseline: { what: "bare SDK v2 stdio server, spawn to answer", p50: br.p50 / 1000 },
      ratio: r.p50 / br.p50,
      target: "≤ 300 ms",
      met: r.p50 / 1000 <= 300,
    });
  } finally {
    await floor.close();
    hop.close();
    await bare.close();
    await admin.close();
    await bench.close();
  }
  return rows;
}
