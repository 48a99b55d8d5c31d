// Row 8: code mode against ordinary tool calls, with the first-party plugins (notes, render,
// upload) in a real host (workers sandbox, SQLite, a local file service on the upload plugin's
// loopback port). The task: search the notes for weekly sales, render a chart of the figures
// found, upload it. Done (A) as three ordinary calls, the model reading each result and writing
// the next call, and (B) as one run_code call. Bytes are what crosses to and from the model: each
// call's MCP `tools/call` params and its CallToolResult (the MCP server's own mapping,
// mcp/mapping.ts), JSON. Then the agent's full tool listing against the code-mode listing plus
// the search_tools answers the task needs; and each inner call's cost against the same call made
// directly through the pipeline in the same run (interleaved samples; inner cost = (run_code with
// N calls − run_code with none) / N).
import { createServer, type Server } from "node:http";
import type { AirlockHost, Run } from "../../host/src/contracts/host.ts";
import { toCallToolResult, toMcpTool } from "../../host/src/surfaces/mcp/mapping.ts";
import { startCodeModeHost } from "../../test/support/code-mode-host.ts";
import type { Row } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";

const FILE_PORT = 17913;
const WEEKS = 12;

/** The upload plugin's loopback file service; the port is shared with plugin tests, so retry. */
async function startFileService(): Promise<Server | null> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(201, { "content-type": "application/json" });
        res.end(JSON.stringify({ url: `http://127.0.0.1:${FILE_PORT}/f/sales.png` }));
      });
    });
    const ok = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(FILE_PORT, "127.0.0.1", () => resolve(true));
    });
    if (ok) return server;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return null;
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

/** One model-visible round trip: the tools/call params the model writes and the result it reads. */
async function roundTrip(run: Run, wire: string, args: Record<string, unknown>) {
  const tool = run.tools().find((t) => t.wireName === wire);
  if (tool === undefined) throw new Error(`no tool ${wire}`);
  const outcome = await run.call(tool.id, args);
  const result = toCallToolResult(outcome);
  return { outcome, bytes: bytes({ name: wire, arguments: args }) + bytes(result) };
}

const TASK_CODE = `const found = await tools.notes.searchNotes({ query: "sales week", limit: 20 });
const values = found.hits.map((h) => Number(/(\\d+) units/.exec(h.snippet)?.[1] ?? 0));
const chart = await tools.render.renderChart({ values, filename: "sales" });
const up = await tools.upload.uploadArtifact({ handle: chart.handle, destination: null });
return { weeks: values.length, url: up.url ?? null };`;

async function threeCalls(run: Run): Promise<{ bytes: number; trips: number; ok: boolean }> {
  const search = await roundTrip(run, "notes__searchNotes", { query: "sales week", limit: 20 });
  // what the model does between the calls: read the figures out of the snippets
  const hits = (search.outcome.result.structuredContent as { hits: Array<{ snippet: string }> }).hits;
  const values = hits.map((h) => Number(/(\d+) units/.exec(h.snippet)?.[1] ?? 0));
  const chart = await roundTrip(run, "render__renderChart", { values, filename: "sales" });
  const handle = (chart.outcome.result.structuredContent as { handle: string }).handle;
  const upload = await roundTrip(run, "upload__uploadArtifact", { handle, destination: null });
  return {
    bytes: search.bytes + chart.bytes + upload.bytes,
    trips: 3,
    ok: upload.outcome.errorCode === undefined && values.length === WEEKS,
  };
}

async function oneRunCode(run: Run): Promise<{ bytes: number; trips: number; ok: boolean }> {
  const trip = await roundTrip(run, "run_code", { code: TASK_CODE });
  const value = (trip.outcome.result.structuredContent as { value?: { weeks?: number } } | undefined)?.value;
  return { bytes: trip.bytes, trips: 1, ok: trip.outcome.errorCode === undefined && value?.weeks === WEEKS };
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t0) / 1e3;
}

async function seed(host: AirlockHost): Promise<void> {
  const run = await host.startRun({ agent: "bench", conversationId: "seed", autoApprove: true });
  for (let week = 1; week <= WEEKS; week++) {
    const units = 40 + ((week * 37) % 60);
    const outcome = await run.call("notes:writeNote", {
      title: `Sales week ${week}`,
      content: `Sales week ${week}: ${units} units sold. Notes from the weekly review follow; nothing else changed.`,
      id: null,
      mode: null,
    });
    if (outcome.errorCode !== undefined) throw new Error(`seeding failed: ${outcome.errorCode}`);
  }
}

export async function codeMode(quick: boolean): Promise<Row[]> {
  const files = await startFileService();
  const fx = await startCodeModeHost({
    mode: "workers",
    plugins: ["notes", "render", "upload"],
    agents: ["bench"],
    host: { autoApprove: true, egress: { allowPrivate: ["127.0.0.1"] } },
  });
  const { host } = fx;
  const rows: Row[] = [];
  try {
    await host.setSecrets("bench", {
      upload_token: "bench-token",
      upload_endpoint: `http://127.0.0.1:${FILE_PORT}`,
    });
    await seed(host);
    const plain = await host.startRun({ agent: "bench", conversationId: "c1" });
    const fullListing = bytes({ tools: plain.tools().map((t) => toMcpTool(t, "wire")) });

    await host.setCodeMode("bench", { enabled: true });
    const run = await host.startRun({ agent: "bench", conversationId: "c1" });
    const a = await threeCalls(run);
    const b = await oneRunCode(run);
    const fileNote =
      files === null ? "; the file service port was busy (another suite's service answered)" : "";
    rows.push({
      id: "8",
      what: "code mode: bytes to and from the model, search notes → chart → upload, one run_code call",
      unit: "bytes",
      p50: b.bytes,
      baseline: { what: "three ordinary tool calls", p50: a.bytes },
      ratio: b.bytes / a.bytes,
      target: "≥ 80% fewer bytes (ratio ≤ 0.2)",
      met: b.bytes <= 0.2 * a.bytes && a.ok && b.ok,
      note: `both paths completed: ${a.ok && b.ok}${fileNote}`,
    });
    rows.push({
      id: "8",
      what: "code mode: model-visible round trips for the same task, one run_code call",
      unit: "round trips",
      p50: b.trips,
      baseline: { what: "three ordinary tool calls", p50: a.trips },
      ratio: b.trips / a.trips,
      target: "1 round trip",
      met: b.trips === 1,
    });

    // What the model reads to learn the tools: the full listing, against search_tools answers
    // (one query naming the task, and the same three tools asked for one query each).
    const task = await roundTrip(run, "search_tools", {
      query: "search notes, render a chart, upload",
      limit: 3,
    });
    const taskTools = (task.outcome.result.content[0] as { text?: string }).text ?? "";
    const found = ["searchNotes", "renderChart", "uploadArtifact"].every((n) =>
      taskTools.includes(`function ${n}(`),
    );
    let perQuery = 0;
    for (const query of ["search notes", "chart", "upload"]) {
      perQuery += (await roundTrip(run, "search_tools", { query, limit: 1 })).bytes;
    }
    await host.setCodeMode("bench", { exclusive: true });
    const exclusive = await host.startRun({ agent: "bench", conversationId: "c1" });
    const codeListing = bytes({ tools: exclusive.tools().map((t) => toMcpTool(t, "wire")) });
    rows.push({
      id: "8",
      what: "code mode: tool definitions the model reads, one search_tools answer for the task's 3 tools",
      unit: "bytes",
      p50: task.bytes,
      baseline: { what: `the agent's full tools/list (${plain.tools().length} tools)`, p50: fullListing },
      ratio: task.bytes / fullListing,
      target: "≥ 80% fewer bytes (ratio ≤ 0.2)",
      met: task.bytes <= 0.2 * fullListing && found,
      note: `the answer names all 3 tools: ${found}; 3 one-tool queries: ${perQuery} B; the code-mode listing itself (exclusive: search_tools + run_code): ${codeListing} B`,
    });

    // Inner call cost: the same read-only call, direct vs from code, interleaved in one run.
    const N = quick ? 2 : 20;
    const samples = quick ? 2 : 30;
    const input = { query: "sales week 3", limit: 1 };
    const loop = `for (let i = 0; i < ${N}; i++) await tools.notes.searchNotes(${JSON.stringify(input)});\nreturn null;`;
    const direct: number[] = [];
    const inner: number[] = [];
    for (let i = 0; i < 3; i++) {
      await run.call("notes:searchNotes", input);
      await run.call("run_code", { code: loop });
      await run.call("run_code", { code: "return null;" });
    }
    for (let i = 0; i < samples; i++) {
      let d = 0;
      for (let j = 0; j < N; j++) d += await timed(() => run.call("notes:searchNotes", input));
      direct.push(d / N);
      const empty = await timed(() => run.call("run_code", { code: "return null;" }));
      const full = await timed(() => run.call("run_code", { code: loop }));
      inner.push((full - empty) / N);
    }
    const d = summarize(direct);
    const c = summarize(inner);
    rows.push({
      id: "8",
      what: "code mode: one inner call (notes:searchNotes) from run_code, workers",
      unit: "µs",
      p50: c.p50,
      p90: c.p90,
      baseline: { what: "the same call directly through the pipeline, same run", p50: d.p50 },
      ratio: c.p50 / d.p50,
      target: "≤ 1.2× the direct call",
      met: c.p50 <= 1.2 * d.p50,
      note: `${N} calls per run_code, ${samples} interleaved samples; inner = (run_code with ${N} calls − empty run_code) / ${N}`,
    });
  } finally {
    await fx.close();
    await new Promise((resolve) => (files === null ? resolve(undefined) : files.close(resolve)));
  }
  return rows;
}
