// Row 9: a call of a remote MCP server's tool through the pipeline, with its session kept and
// reused (the default) against a new session per call (`remote.sessionIdleMs: 0`, what every
// call did before the session pool). Two real hosts (in-process sandbox, SQLite) on one remote
// server (the SDK v2 fixture, stateful: session ids), samples interleaved. Figures: the call's
// latency (µs) and the HTTP requests the server received per call.
import type { Run } from "../../host/src/contracts/host.ts";
import { type RemoteHost, startRemoteHost } from "../../test/support/remote-host.ts";
import { startRemoteFixture } from "../../test/support/remote-mcp-fixture.ts";
import type { Row } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";

async function prepared(url: string, sessionIdleMs: number): Promise<{ h: RemoteHost; run: Run }> {
  const h = await startRemoteHost({ remote: { sessionIdleMs } });
  await h.host.remote.install(`mcp+${url}`, { namespace: "fx", allowPrivate: ["127.0.0.1"] });
  await h.host.setToolsEnabled("alpha", { "fx:echo": true });
  await h.host.remote.setReadOnly("fx", "echo", true);
  return { h, run: await h.host.startRun({ agent: "alpha" }) };
}

export async function remoteCall(quick: boolean): Promise<Row[]> {
  const fx = await startRemoteFixture();
  fx.sessions = true;
  const kept = await prepared(fx.url, 60_000);
  const fresh = await prepared(fx.url, 0);
  const samples = quick ? 3 : 60;
  const timing = { kept: [] as number[], fresh: [] as number[] };
  const requests = { kept: [] as number[], fresh: [] as number[] };
  let failures = 0;
  const once = async (which: "kept" | "fresh") => {
    const run = which === "kept" ? kept.run : fresh.run;
    const seen = fx.seenAuth.length;
    const t0 = process.hrtime.bigint();
    const outcome = await run.call("fx:echo", { text: "bench" });
    timing[which].push(Number(process.hrtime.bigint() - t0) / 1e3);
    requests[which].push(fx.seenAuth.length - seen);
    if (outcome.errorCode !== undefined) failures++;
  };
  try {
    for (let i = 0; i < 3; i++) {
      await once("kept");
      await once("fresh");
    }
    for (const list of [...Object.values(timing), ...Object.values(requests)]) list.length = 0;
    for (let i = 0; i < samples; i++) {
      await once("kept");
      await once("fresh");
    }
  } finally {
    await kept.h.close();
    await fresh.h.close();
    await fx.close();
  }
  const k = summarize(timing.kept);
  const f = summarize(timing.fresh);
  const kr = summarize(requests.kept);
  const fr = summarize(requests.fresh);
  return [
    {
      id: "9",
      what: "remote MCP tool call (fx:echo over loopback HTTP), session kept and reused",
      unit: "µs",
      p50: k.p50,
      p90: k.p90,
      baseline: { what: "a new session per call (remote.sessionIdleMs 0)", p50: f.p50 },
      ratio: k.p50 / f.p50,
      target: "faster than a new session per call (ratio < 1)",
      met: k.p50 < f.p50 && failures === 0,
      note: `${samples} interleaved samples each; failed calls: ${failures}`,
    },
    {
      id: "9",
      what: "remote MCP tool call: HTTP requests the server receives per call, session reused",
      unit: "requests",
      p50: kr.p50,
      p90: kr.p90,
      baseline: { what: "a new session per call", p50: fr.p50 },
      ratio: kr.p50 / fr.p50,
      target: "2 (tools/list, tools/call; no handshake)",
      met: kr.p50 === 2,
    },
  ];
}
