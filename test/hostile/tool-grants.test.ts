// Hostile, end to end through the real host (SQLite, real bridge and capabilities, both sandbox
// modes): per-tool grants. Tool `reacher` of plugin `duo` declares little (`uses`: state read,
// GET of 127.0.0.1); tool `declarer` of the same plugin declares every capability kind. The
// reacher reaches for each kind only the declarer declared: each is refused with
// AIRLOCK_GRANT_NOT_DECLARED (secrets: read as undefined, AIRLOCK_SECRETS_UNDECLARED, as for any
// undeclared key) before the capability runs, audited as a denial with its reason; no request
// reaches the local server; the declarer's own use of the same capability works; the host keeps
// serving, and no secret value or document content appears in any output, audit row or report.
// The install half: a tarball whose tool declares more than its plugin is refused
// (AIRLOCK_INSTALL_USES_EXCEEDED), audited, and nothing is installed.
import { samplePluginTarball } from "@airlock/sdk/package";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixturePlugin } from "../../host/src/engine/pipeline/test-fixtures.ts";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";
import { startServer, type TestServer } from "../../host/src/isolation/egress/test-support.ts";

const SHARED = "sk-shared-tool-grants-3f9a1c";
const DOC = "doc-canary-tool-grants-82b4e0";

/** One attempt per kind, each catching its refusal: the reacher reports what it saw. */
const attempts: Record<string, string> = {
  knowledge_read: `ctx.knowledge.search("canary")`,
  knowledge_write: `ctx.knowledge.write({ filename: "r.md", content: "x" })`,
  knowledge_manage: `ctx.knowledge.delete(input.doc)`,
  state_write: `ctx.state.set("k", 1)`,
  artifacts_put: `ctx.artifacts.put({ buffer: "x", filename: "x.txt", mime: "text/plain" })`,
  artifacts_take: `ctx.artifacts.take(input.handle)`,
  fetch_host: `ctx.fetch("http://localhost:" + input.port + "/")`,
  fetch_method: `ctx.fetch("http://127.0.0.1:" + input.port + "/", { method: "POST", body: "x" })`,
  models: `ctx.models.complete({ messages: [{ role: "user", content: "hi" }] })`,
  oauth_provider: `ctx.oauth.requireToken("acme")`,
};

const reacher = `async (input, ctx) => {
  const attempts = {
${Object.entries(attempts)
  .map(([k, v]) => `    ${k}: () => ${v},`)
  .join("\n")}
    secret: () => ctx.secrets.get("shared_key"),
    state_read: () => ctx.state.get("k"),
    fetch_get: () => ctx.fetch("http://127.0.0.1:" + input.port + "/").then((r) => r.status),
  };
  try {
    const value = await attempts[input.kind]();
    return { ok: true, value: value === undefined ? "undefined" : value };
  } catch (e) {
    return { ok: false, code: e.code, message: e.message };
  }
}`;

const declarer = `async (input, ctx) => {
  const doc = await ctx.knowledge.write({ filename: "d.md", content: ${JSON.stringify(DOC)} });
  const handle = await ctx.artifacts.put({ buffer: "held", filename: "h.txt", mime: "text/plain" });
  await ctx.state.set("k", 2);
  const status = (await ctx.fetch("http://127.0.0.1:" + input.port + "/", { method: "POST", body: "y" })).status;
  const secret = (await ctx.secrets.get("shared_key")) === ${JSON.stringify(SHARED)};
  return { doc: doc.id, handle, status, secret };
}`;

function duo(port: number): FixturePlugin {
  return {
    namespace: "duo",
    knowledge: "manage",
    egress: [
      { host: "127.0.0.1", schemes: ["http"], ports: [port] },
      { host: "localhost", schemes: ["http"], ports: [port] },
    ],
    models: { reason: "summaries" },
    oauth: [
      {
        name: "acme",
        authorizationUrl: "https://localhost/authorize",
        tokenUrl: "https://localhost/token",
        scopes: [],
        apiHosts: ["localhost"],
      },
    ],
    tools: [
      {
        name: "reacher",
        code: reacher,
        inputSchema: { type: "object" },
        uses: { state: "read", fetch: [{ host: "127.0.0.1", methods: ["GET"] }] },
      },
      {
        name: "declarer",
        code: declarer,
        inputSchema: { type: "object" },
        requiredSecrets: [{ key: "shared_key", type: "text", optional: false, sensitive: true }],
        uses: {
          knowledge: "manage",
          state: "write",
          artifacts: ["put", "take"],
          fetch: [
            { host: "127.0.0.1", methods: ["GET", "POST"] },
            { host: "localhost", methods: ["GET", "POST"] },
          ],
          secrets: ["shared_key"],
          models: true,
          oauth: ["acme"],
        },
      },
      {
        // declares no secret of its own, borrows the declarer's through uses.secrets
        name: "borrower",
        code: `async (input, ctx) => ({ same: (await ctx.secrets.get("shared_key")) === ${JSON.stringify(SHARED)} })`,
        inputSchema: { type: "object" },
        uses: { secrets: ["shared_key"] },
      },
      { name: "echo", code: "async (input) => ({ echoed: input })", inputSchema: { type: "object" } },
    ],
  };
}

describe.each(["in-process", "workers"] as const)("per-tool grants at the bridge (%s)", (mode) => {
  let t: TestHost;
  let server: TestServer;
  let requests = 0;
  let held: { doc: string; handle: string };

  beforeAll(async () => {
    server = await startServer((_req, res) => {
      requests++;
      res.end("ok");
    });
    t = await openTestHost([duo(server.port)], {
      egress: { allowPrivate: ["127.0.0.1"] },
      autoApprove: true, // no tool here claims read-only: approval is not what this file tests
      sandbox: mode === "workers" ? { mode, workers: 1 } : { mode },
    });
    await t.host.createAgent("ada");
    await t.host.setToolsEnabled("ada", {
      "duo:reacher": true,
      "duo:declarer": true,
      "duo:borrower": true,
      "duo:echo": true,
    });
    await t.host.setKnowledgeLevel("ada", "manage");
    await t.host.setSecrets("ada", { shared_key: SHARED });
    const out = await t.host.callTool("ada", "duo:declarer", { port: server.port });
    expect(out.errorCode).toBeUndefined();
    const made = out.result.structuredContent as {
      doc: string;
      handle: string;
      status: number;
      secret: boolean;
    };
    // the declarer reaches what it declared: a document, an artifact, state, a POST, the shared secret
    expect(made).toMatchObject({ status: 200, secret: true });
    expect(requests).toBe(1);
    held = made;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  async function reach(kind: string): Promise<Record<string, unknown>> {
    const out = await t.host.callTool("ada", "duo:reacher", { kind, port: server.port, ...held });
    expect(out.errorCode).toBeUndefined();
    return out.result.structuredContent as Record<string, unknown>;
  }

  async function expectHealthy(): Promise<void> {
    const out = await t.host.callTool("ada", "duo:echo", { still: "alive" });
    expect(out.result.structuredContent).toEqual({ echoed: { still: "alive" } });
    const everything =
      JSON.stringify(await t.host.queryAudit({ limit: 100_000 })) +
      t.internalErrors.map((e) => `${e.what} ${String(e.error)}`).join("\n");
    expect(everything).not.toContain(SHARED);
    expect(everything).not.toContain(DOC);
    expect(t.internalErrors).toEqual([]);
  }

  it.each(Object.keys(attempts))(
    "refuses the reacher's %s, which only the declarer declared, with AIRLOCK_GRANT_NOT_DECLARED, audited",
    async (kind) => {
      const before = requests;
      const seen = await reach(kind);
      expect(seen).toMatchObject({ ok: false, code: "AIRLOCK_GRANT_NOT_DECLARED" });
      expect(String(seen.message)).toContain("duo:reacher");
      expect(JSON.stringify(seen)).not.toContain(DOC);
      expect(requests).toBe(before); // no request left the host
      const rows = await t.host.queryAudit({ kind: "capability", tool: "reacher", limit: 1000 });
      const denial = rows.find(
        (r) =>
          r.error === "AIRLOCK_GRANT_NOT_DECLARED" && (r.details as { reason?: string })?.reason === kind,
      );
      expect(denial).toMatchObject({ allowed: false, agent: "ada" });
      await expectHealthy();
    },
  );

  it("reads a secret only the declarer declared as undefined, audited as AIRLOCK_SECRETS_UNDECLARED", async () => {
    expect(await reach("secret")).toEqual({ ok: true, value: "undefined" });
    const rows = await t.host.queryAudit({ kind: "capability", tool: "reacher", limit: 1000 });
    expect(rows.some((r) => r.action === "secrets.get" && r.error === "AIRLOCK_SECRETS_UNDECLARED")).toBe(
      true,
    );
    await expectHealthy();
  });

  it("lets a tool read a secret another tool declares when its uses.secrets names it", async () => {
    const out = await t.host.callTool("ada", "duo:borrower", {});
    expect(out.result.structuredContent).toEqual({ same: true });
    await expectHealthy();
  });

  it("lets the reacher do what it declared: read state, GET its one host", async () => {
    // state is per conversation: this call's is empty, and reading it is allowed
    expect(await reach("state_read")).toEqual({ ok: true, value: "undefined" });
    const before = requests;
    expect(await reach("fetch_get")).toEqual({ ok: true, value: 200 });
    expect(requests).toBe(before + 1);
    await expectHealthy();
  });
});

describe("per-tool grants at install", () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await openTestHost([]);
  });
  afterAll(async () => t?.close());

  it("refuses a tarball whose tool uses more than its plugin declares, audited, installing nothing", async () => {
    const bytes = samplePluginTarball({
      namespace: "greedy",
      version: "1.0.0",
      patch: (m) => {
        const tool = m.tools[0];
        if (tool !== undefined)
          tool.uses = {
            knowledge: "write",
            fetch: [{ host: "evil.example", methods: ["GET"] }],
            models: true,
          };
      },
    });
    const err = await t.host.plugins
      .installTarball(bytes, "/tmp/greedy.tgz", { allowUnsigned: true })
      .catch((e: unknown) => e as { code: string; details: { problems: Array<{ path: string }> } });
    expect(err).toMatchObject({ code: "AIRLOCK_INSTALL_USES_EXCEEDED" });
    expect(
      (err as { details: { problems: Array<{ path: string }> } }).details.problems.map((p) => p.path),
    ).toEqual(["$.tools[0].uses.knowledge", "$.tools[0].uses.fetch[0].host", "$.tools[0].uses.models"]);
    const rows = (await t.host.queryAudit({ kind: "admin" })).filter((r) => r.action === "plugin.install");
    expect(rows[0]).toMatchObject({ success: false, error: "AIRLOCK_INSTALL_USES_EXCEEDED" });
    expect(await (await t.store()).listInstalledPlugins("greedy")).toEqual([]);
    expect(await t.host.listTools()).toEqual([]);
  });
});
