// A full store is an answer, never a silent loss (SQLite). The host's airlock.db is capped at its
// size when the host opens (`store.maxBytes`: SQLite's max_page_count on the real file, so SQLite
// itself answers SQLITE_FULL, as on a full disk). Then: a plugin's knowledge write is refused to
// the plugin with AIRLOCK_STORE_FULL (a code it can act on, not "knowledge.write failed"); a tool
// that lets a full state write go ends its call with AIRLOCK_STORE_FULL (not
// AIRLOCK_SANDBOX_TOOL_THREW); an operator's write is refused with it, over HTTP as 507 with
// Retry-After; every call that was answered has its audit row; the host stays healthy; once the
// space is back (reopened without the cap) everything works and integrity_check is clean.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { type FixturePlugin, installFixture } from "../../host/src/engine/pipeline/test-fixtures.ts";
import { createHost } from "../../host/src/host.ts";
import { openStore } from "../../host/src/state/store/index.ts";
import { createAdminApi } from "../../host/src/surfaces/http/app.ts";

const text = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const notes: FixturePlugin = {
  namespace: "notes",
  tools: [
    {
      name: "save",
      inputSchema: text,
      code: "async (input, ctx) => { try { const r = await ctx.knowledge.write({ filename: 'n.txt', content: input.text }); return 'saved ' + r.ok; } catch (e) { return 'refused ' + e.code; } }",
    },
    {
      name: "remember",
      inputSchema: text,
      code: "async (input, ctx) => { await ctx.state.set('k', input.text); return 'remembered'; }",
    },
    { name: "ping", code: "async () => 'pong'", annotations: { readOnlyHint: true } },
  ],
};
const big = (kb: number) => "x".repeat(kb * 1024);
const reply = (out: { result: { content: unknown[] } }) =>
  (out.result.content[0] as { text?: string } | undefined)?.text;

describe("a SQLite host whose database is full", () => {
  let dir: string;
  let operator: string;
  const masterKey = randomBytes(32).toString("base64");
  const internal: string[] = [];
  const open = (maxBytes?: number): Promise<AirlockHost> =>
    createHost({
      dataDir: dir,
      sandbox: { mode: "in-process" },
      masterKey,
      autoApprove: true, // the tools write: no person to approve them here
      store: { kind: "sqlite", ...(maxBytes === undefined ? {} : { maxBytes }) },
      onInternalError: (what) => void internal.push(what),
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-full-"));
    const seed = await openStore({ kind: "sqlite", dataDir: dir });
    await installFixture(seed, join(dir, "plugins"), notes);
    await seed.close();
    const host = await open();
    await host.createAgent("ada");
    await host.setKnowledgeLevel("ada", "write");
    await host.setToolsEnabled("ada", { "notes:save": true, "notes:remember": true, "notes:ping": true });
    expect(reply(await host.callTool("ada", "notes:save", { text: "first" }))).toBe("saved true");
    operator = (await host.issueToken("operator", undefined, "full")).token;
    await host.close();
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("refuses writes with AIRLOCK_STORE_FULL on every surface, audits every answered call, and recovers", async () => {
    const host = await open(1); // capped at the size it has now
    const callIds: string[] = [];
    try {
      const saved = await host.callTool("ada", "notes:save", { text: big(200) });
      callIds.push(saved.callId);
      expect(reply(saved)).toBe("refused AIRLOCK_STORE_FULL");

      const remembered = await host.callTool("ada", "notes:remember", { text: big(200) });
      callIds.push(remembered.callId);
      expect(remembered.errorCode).toBe("AIRLOCK_STORE_FULL");
      expect(remembered.result.isError).toBe(true);

      let refusal: unknown;
      for (let i = 0; i < 2000 && refusal === undefined; i++) {
        await host.createAgent(`agent-${i}-${"a".repeat(40)}`).catch((error: unknown) => {
          refusal = error;
        });
      }
      expect(refusal).toMatchObject({ code: "AIRLOCK_STORE_FULL" });

      const api = createAdminApi(host, { log: () => undefined, mcp: false });
      const res = await api.request("/api/instances", {
        method: "POST",
        headers: { authorization: `Bearer ${operator}`, "content-type": "application/json" },
        body: JSON.stringify({ slug: `bob-${"b".repeat(40)}` }),
      });
      expect(res.status).toBe(507);
      expect(res.headers.get("retry-after")).toBe("30");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("AIRLOCK_STORE_FULL");

      const ping = await host.callTool("ada", "notes:ping", {});
      callIds.push(ping.callId);
      expect(reply(ping)).toBe("pong");
      const audited = (await host.queryAudit({ agent: "ada", kind: "tool" })).map((r) => r.details?.callId);
      for (const id of callIds) expect(audited).toContain(id);
    } finally {
      await host.close();
    }

    const again = await open();
    try {
      await again.createAgent("after-space");
      expect(reply(await again.callTool("ada", "notes:save", { text: big(200) }))).toBe("saved true");
      expect(reply(await again.callTool("ada", "notes:remember", { text: big(100) }))).toBe("remembered");
    } finally {
      await again.close();
    }
    const db = new DatabaseSync(join(dir, "airlock.db"), { readOnly: true });
    try {
      expect(db.prepare("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
    } finally {
      db.close();
    }
  });
});
