// PostgreSQL going away is an answer, never a crash (the shared server stays up: the host reaches
// it through a TCP proxy this test owns and cuts). With the proxy cut, the replica's process
// survives (an unhandled 'error' of a pooled pg client used to end it), a token lookup, an admin
// request and a tool call each answer AIRLOCK_STORE_UNAVAILABLE (HTTP 503 with Retry-After), and
// once the proxy is back everything works again by itself. A call whose audit row cannot be
// written is not acknowledged: an afterToolCall hook cuts the proxy after the tool ran, and the
// call ends with AIRLOCK_STORE_UNAVAILABLE, its result withheld.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { type FixturePlugin, installFixture } from "../../host/src/engine/pipeline/test-fixtures.ts";
import { createHost } from "../../host/src/host.ts";
import { openStore, type Store } from "../../host/src/state/store/index.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { createAdminApi } from "../../host/src/surfaces/http/app.ts";
import { pgProxy } from "../support/pg-proxy.ts";
import { describePg, PG_URL } from "../support/postgres.ts";

const counter: FixturePlugin = {
  namespace: "counter",
  tools: [
    {
      name: "bump",
      code: "async (input, ctx) => { const n = ((await ctx.state.get('n')) ?? 0) + 1; await ctx.state.set('n', n); return String(n); }",
    },
  ],
};

describePg("a replica whose PostgreSQL goes away", () => {
  const schema = freshSchemaName();
  let dir: string;
  let proxy: Awaited<ReturnType<typeof pgProxy>>;
  let host: AirlockHost;
  let direct: Store;
  const internal: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-outage-"));
    proxy = await pgProxy();
    direct = await openStore({ kind: "postgres", url: PG_URL, schema });
    await installFixture(direct, join(dir, "plugins"), counter);
    host = await createHost({
      dataDir: dir,
      store: { kind: "postgres", url: proxy.url, schema },
      sandbox: { mode: "in-process" },
      masterKey: randomBytes(32).toString("base64"),
      autoApprove: true,
      onInternalError: (what) => void internal.push(what),
    });
    await host.createAgent("ada");
    await host.setToolsEnabled("ada", { "counter:bump": true });
  });
  afterAll(async () => {
    proxy?.restore();
    await host?.close();
    await direct?.close();
    await proxy?.close();
    await dropSchemas(PG_URL, [schema]);
    await rm(dir, { recursive: true, force: true });
  });

  it("answers AIRLOCK_STORE_UNAVAILABLE on every surface while it is gone, and recovers by itself", async () => {
    expect((await host.callTool("ada", "counter:bump", {})).errorCode).toBeUndefined();
    const { token: operator } = await host.issueToken("operator", undefined, "outage");
    const { token: agentToken } = await host.issueToken("agent", "ada", "outage");
    const { token: mcpToken } = await host.issueToken("agent", "ada", "outage-mcp");
    const api = createAdminApi(host, { log: () => undefined });
    const codeOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

    proxy.cut();
    try {
      await expect(host.authenticate(agentToken)).rejects.toMatchObject({
        code: "AIRLOCK_STORE_UNAVAILABLE",
      });
      const res = await api.request("/api/instances", { headers: { authorization: `Bearer ${operator}` } });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(await codeOf(res)).toBe("AIRLOCK_STORE_UNAVAILABLE");
      const mcp = await api.request("/mcp/ada", {
        method: "POST",
        headers: {
          authorization: `Bearer ${mcpToken}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(mcp.status).toBe(503);
      expect(mcp.headers.get("retry-after")).toBe("2");
      expect(await codeOf(mcp)).toBe("AIRLOCK_STORE_UNAVAILABLE");
      const calls = await Promise.allSettled([1, 2, 3].map(() => host.callTool("ada", "counter:bump", {})));
      expect(calls.map((c) => (c.status === "rejected" ? c.reason.code : c.value.errorCode))).toEqual([
        "AIRLOCK_STORE_UNAVAILABLE",
        "AIRLOCK_STORE_UNAVAILABLE",
        "AIRLOCK_STORE_UNAVAILABLE",
      ]);
      await expect(host.createAgent("bob")).rejects.toMatchObject({ code: "AIRLOCK_STORE_UNAVAILABLE" });
    } finally {
      proxy.restore();
    }

    expect(await host.authenticate(agentToken)).toMatchObject({ agent: "ada" });
    const after = await api.request("/api/instances", { headers: { authorization: `Bearer ${operator}` } });
    expect(after.status).toBe(200);
    const bumped = await host.callTool("ada", "counter:bump", {});
    expect(bumped.errorCode).toBeUndefined();
    const audited = (await host.queryAudit({ agent: "ada", kind: "tool" })).map((r) => r.details?.callId);
    expect(audited).toContain(bumped.callId);
  });

  it("does not acknowledge a call whose audit row cannot be written", async () => {
    const unhook = host.afterToolCall(() => proxy.cut());
    let out: Awaited<ReturnType<AirlockHost["callTool"]>>;
    try {
      out = await host.callTool("ada", "counter:bump", {});
    } finally {
      unhook();
      proxy.restore();
    }
    expect(out.errorCode).toBe("AIRLOCK_STORE_UNAVAILABLE");
    expect(out.result.isError).toBe(true);
    expect(JSON.stringify(out.result.content)).toContain("its result is withheld");
    // the host is healthy again, and answers the next call with its result and its row
    const next = await host.callTool("ada", "counter:bump", {});
    expect(next.errorCode).toBeUndefined();
    const rows = await direct.queryAudit({ agent: "ada", kind: "tool" });
    expect(rows.map((r) => r.details?.callId)).toContain(next.callId);
  });
});
