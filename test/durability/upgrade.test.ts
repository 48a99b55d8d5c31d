// Upgrades that lose nothing: every fixture under test/fixtures/upgrade/ (a store an earlier
// release filled through its public surfaces, scripts/make-upgrade-fixture.ts) is opened by this
// code on SQLite (a copy of the data dir, at another path) and on PostgreSQL (the dump restored
// into a fresh schema), migrated by starting a real host (`airlock serve`, a child process), and
// then:
// - every row the release wrote is still there, column for column (upgrade-support.ts lostRows:
//   only the documented rewrite of plugin paths, only expired short-lived rows may go);
// - every fact of facts.json holds through the surfaces: each view of the admin API shows at least
//   what it showed, tokens authenticate (the revoked one does not), secrets decrypt (a tool
//   compares them, nothing prints them), documents and state read back, the audit history and the
//   approval decisions are kept, the approval policies still decide, code mode runs the snippet,
//   MCP serves the agent, and the plugin runs its active version and rolls back to its recorded
//   target, the signed one with the key the release trusted.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import {
  api,
  call,
  mcpSession,
  type RunningHost,
  serve,
  textOf,
} from "../../scripts/make-upgrade-fixture.ts";
import { describePg, PG_URL } from "../support/postgres.ts";
import {
  copyDataDir,
  type Facts,
  type FixtureDir,
  fixtureDirs,
  lostRows,
  missingFacts,
  pgSnapshot,
  restoreDump,
  type Snapshot,
  sqliteSnapshot,
} from "./upgrade-support.ts";

interface OpenedStore {
  dataDir: string;
  store?: string;
  snapshot(): Promise<Snapshot>;
}

/** A tool call's first text and error code, as `token` (an agent's own token, or the operator's). */
async function tool(
  host: RunningHost,
  token: string,
  agent: string,
  name: string,
  input: object,
  extra = {},
) {
  const out = await call(host, token, agent, name, input as Record<string, unknown>, extra);
  return { text: textOf(out), code: out.errorCode ?? null };
}

function upgradeSuite(
  title: string,
  facts: Facts,
  open: () => Promise<OpenedStore>,
  close: () => Promise<void>,
) {
  describe(title, () => {
    let store: OpenedStore;
    let before: Snapshot;
    let after: Snapshot;
    let host: RunningHost;
    const run = (dataDir: string, url?: string) =>
      serve(url === undefined ? { dataDir } : { dataDir, store: url });
    beforeAll(async () => {
      store = await open();
      before = await store.snapshot();
      const migrating = await run(store.dataDir, store.store);
      expect(await migrating.stop(), migrating.output()).toBe(0);
      after = await store.snapshot();
      host = await run(store.dataDir, store.store);
    }, 180_000);
    afterAll(async () => {
      if (host !== undefined) expect(await host.stop(), host.output()).toBe(0);
      await close();
    }, 60_000);
    const op = () => facts.operatorToken as string;
    const agentToken = (slug: string) => facts.agentTokens[slug] as string;

    it("keeps every row the release wrote (only plugin paths rewritten, only expired rows gone)", () => {
      expect(before.size).toBeGreaterThan(10);
      expect(lostRows(before, after)).toEqual([]);
    });

    it("would fail a migration that lost a row, rewrote a value or moved a plugin path elsewhere", () => {
      const broken: Snapshot = new Map([...after].map(([k, rows]) => [k, rows.map((r) => ({ ...r }))]));
      const table = (name: string) => [...broken].find(([k]) => k.endsWith(`:${name}`))?.[1] ?? [];
      table("knowledge_docs").pop();
      const secret = table("secrets")[0];
      if (secret !== undefined) secret.ciphertext = `${String(secret.ciphertext)}x`;
      const plugin = table("installed_plugins").find((r) => String(r.path).startsWith("plugins/"));
      if (plugin !== undefined) plugin.path = "plugins/elsewhere/0.0.0";
      const problems = lostRows(before, broken);
      expect(problems.map((p) => p.slice(0, p.indexOf(":", p.indexOf(":") + 1)))).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/knowledge_docs$/),
          expect.stringMatching(/secrets$/),
          expect.stringMatching(/installed_plugins$/),
        ]),
      );
      expect(problems).toHaveLength(3);
    });

    it("shows every admin view at least as the release showed it", async () => {
      const get = async (path: string) => (await api(host, op(), "GET", path)).body;
      const views = facts.views;
      for (const [slug, agent] of Object.entries(views.agents as Record<string, Record<string, unknown>>)) {
        const tools = (await get(`/api/instances/${slug}/tools`)).tools;
        expect(missingFacts(tools, agent.tools, `${slug}.tools`)).toEqual([]);
        for (const [name, path] of Object.entries({
          knowledge: "knowledge",
          secrets: "secrets",
          people: "people",
          codeMode: "code-mode",
          snippets: "snippets",
          oauthGrants: "oauth-grants",
          models: "models",
          oauth: "oauth",
        })) {
          const shown = await get(`/api/instances/${slug}/${path}`);
          expect(missingFacts(shown, agent[name], `${slug}.${name}`)).toEqual([]);
        }
      }
      for (const [name, path] of Object.entries({
        instances: "/api/instances",
        tokens: "/api/tokens",
        plugins: "/api/plugins",
        remote: "/api/remote",
        models: "/api/models",
        snippet: "/api/instances/ada/snippets/fixture-version",
        audit: "/api/audit?limit=1000",
      })) {
        expect(missingFacts(await get(path), views[name], name)).toEqual([]);
      }
    });

    it("authenticates every token the release issued, and refuses the one it revoked", async () => {
      for (const slug of Object.keys(facts.agentTokens)) {
        const own = await api(host, agentToken(slug), "GET", `/api/instances/${slug}/tools`);
        expect(own.status).toBe(200);
      }
      expect((await api(host, facts.extraTokens.adaDesk, "GET", "/api/instances/ada/tools")).status).toBe(
        200,
      );
      expect((await api(host, facts.extraTokens.secondOperator, "GET", "/api/instances")).status).toBe(200);
      expect((await api(host, op(), "GET", "/api/tokens")).status).toBe(200);
      await api(host, facts.revokedToken, "GET", "/api/instances/bo/tools", undefined, 401);
      await api(host, agentToken("cy"), "GET", "/api/instances/ada/tools", undefined, 404);
    });

    it("decrypts every secret: the tool that uses it finds the value the release stored", async () => {
      for (const [slug, value] of Object.entries(facts.secrets as Record<string, string | null>)) {
        const guess = (g: string) => tool(host, agentToken(slug), slug, "fx:checkSecret", { guess: g });
        if (value === null) {
          expect((await guess("anything")).code).toBe(facts.missingSecretCode);
          continue;
        }
        expect(await guess(value)).toEqual({ text: "match", code: null });
        expect(await guess(`${value}!`)).toEqual({ text: "mismatch", code: null });
      }
    });

    it("reads back the knowledge documents and the conversation state", async () => {
      for (const doc of facts.documents) {
        const read = await tool(host, agentToken(doc.agent), doc.agent, "fx:readDoc", { id: doc.id });
        expect(JSON.parse(read.text)).toEqual({
          id: doc.id,
          filename: doc.filename,
          content: doc.content,
          writer: doc.writer,
        });
      }
      for (const s of facts.state) {
        const read = await tool(
          host,
          agentToken(s.agent),
          s.agent,
          "fx:getState",
          { key: s.key },
          {
            conversationId: s.conversationId,
          },
        );
        expect(JSON.parse(read.text)).toBe(s.value);
      }
    });

    it("keeps the audit history: calls, refusals and both approval decisions", async () => {
      const entries = (await api(host, op(), "GET", "/api/audit?limit=1000")).body.entries as Facts[];
      const byCall = (callId: string) =>
        entries.find((e) => e.kind === "tool" && e.action === "call" && e.details?.callId === callId);
      for (const a of facts.approvals) expect(byCall(a.outcome.callId)?.success).toBe(a.approve);
      const recorded = facts.views.audit.entries as Record<string, unknown>[];
      const kept = entries.filter((e) => recorded.some((r) => r.id === e.id));
      expect(kept.length).toBe(recorded.length);
      expect(recorded.some((r) => r.kind === "capability" && r.success === false)).toBe(true);
      expect(recorded.filter((r) => r.action === "approval.decide").length).toBe(2);
    });

    it("decides by the approval policies the release stored", async () => {
      expect(await tool(host, agentToken("bo"), "bo", "fx:change", { text: "auto" })).toEqual({
        text: "changed auto",
        code: null,
      });
      const pending = tool(host, agentToken("ada"), "ada", "fx:change", { text: "needs an operator" });
      let approval: Record<string, unknown> | undefined;
      for (let i = 0; i < 600 && approval === undefined; i++) {
        const list = (await api(host, op(), "GET", "/api/approvals?agent=ada")).body.approvals as Facts[];
        approval = list.find((a) => a.input?.text === "needs an operator");
        if (approval === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      expect(approval).toBeDefined();
      await api(host, op(), "POST", `/api/approvals/${approval?.id}`, {
        approve: false,
        reason: "upgrade test",
      });
      expect((await pending).code).toBe("AIRLOCK_APPROVAL_DENIED");
    });

    it("runs the code-mode snippet the release saved, over the calls route and MCP", async () => {
      const snippet = (await api(host, op(), "GET", "/api/instances/ada/snippets/fixture-version")).body;
      expect(snippet.code).toBe(facts.snippetCode);
      const run = await tool(
        host,
        op(),
        "ada",
        "airlock:run_code",
        { code: snippet.code },
        { conversationId: "conv-up" },
      );
      expect(run).toEqual({ text: facts.runCodeResult, code: null });
      const mcp = await mcpSession(host, agentToken("ada"), "ada");
      expect(mcp.init.status).toBe(200);
      const listed = await mcp.request("tools/list", {});
      const names = ((listed.body.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["fx__version", "sx__version", "run_code"]));
      const called = await mcp.request("tools/call", { name: "sx__version", arguments: {} });
      expect(called.body.result).toMatchObject({ content: [{ type: "text", text: "1.0.0" }] });
    });

    it("runs the active plugin version and rolls back to the target the release recorded", async () => {
      const fx = (facts.views.plugins.plugins as Facts[]).find((p) => p.namespace === "fx");
      expect(await tool(host, agentToken("ada"), "ada", "fx:version", {})).toEqual({
        text: fx?.active,
        code: null,
      });
      expect(await tool(host, agentToken("ada"), "ada", "sx:version", {})).toEqual({
        text: "1.0.0",
        code: null,
      });
      // the publisher key the release trusted for `sx` (a file in its data dir) is kept, in the store
      const keys = (await api(host, op(), "GET", "/api/plugins/sx/keys")).body.keys as Facts[];
      expect(keys.map((k) => k.keyId)).toEqual([facts.signed.keyId]);
      const rolled = (await api(host, op(), "POST", "/api/plugins/fx/rollback")).body;
      expect(rolled).toMatchObject({ namespace: "fx", version: fx?.previous });
      expect(await tool(host, agentToken("ada"), "ada", "fx:version", {})).toEqual({
        text: fx?.previous,
        code: null,
      });
    });
  });
}

for (const fixture of fixtureDirs()) sqliteUpgrade(fixture);
for (const fixture of fixtureDirs()) pgUpgrade(fixture);

function sqliteUpgrade(fixture: FixtureDir): void {
  let root = "";
  upgradeSuite(
    `the ${fixture.version} SQLite data dir, moved and opened by this version`,
    fixture.facts.sqlite,
    async () => {
      root = await mkdtemp(join(tmpdir(), "airlock-upgrade-"));
      const dataDir = join(root, "moved", "data");
      copyDataDir(join(fixture.dir, "sqlite", "data"), dataDir);
      return { dataDir, snapshot: async () => sqliteSnapshot(dataDir) };
    },
    async () => {
      if (root !== "") await rm(root, { recursive: true, force: true });
    },
  );
}

function pgUpgrade(fixture: FixtureDir): void {
  describePg(`PostgreSQL (${fixture.version})`, () => {
    const schema = freshSchemaName("airlock_up");
    let root = "";
    upgradeSuite(
      `the ${fixture.version} PostgreSQL dump, restored and opened by this version`,
      fixture.facts.postgres,
      async () => {
        root = await mkdtemp(join(tmpdir(), "airlock-upgrade-pg-"));
        const dataDir = join(root, "data");
        copyDataDir(join(fixture.dir, "postgres", "data"), dataDir);
        restoreDump(PG_URL, join(fixture.dir, "postgres", "dump.sql"), fixture.facts.postgres.schema, schema);
        const store = `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}schema=${schema}`;
        return { dataDir, store, snapshot: () => pgSnapshot(PG_URL, schema) };
      },
      async () => {
        await dropSchemas(PG_URL, [schema]);
        if (root !== "") await rm(root, { recursive: true, force: true });
      },
    );
  });
}
