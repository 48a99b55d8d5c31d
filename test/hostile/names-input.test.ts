// Hostile names and input, through the real host (SQLite, in-process sandbox, real installer and
// admin API): namespaces that read as the platform's own or as another plugin, manifests with
// lone surrogates (in airlock.json or package.json), duplicate keys or metadata egress hosts,
// names a person reads holding invisible format characters (bidi overrides, zero-width joiners:
// artifact and document filenames, tool titles, namespaces, tool names, agent slugs, secret names),
// and tool input / API bodies with duplicate keys, lone surrogates and prototype keys. Each is refused with its exact code,
// audited, nothing is installed or run, the host keeps serving, and no secret value leaks.
import {
  type SamplePluginOptions,
  samplePluginFiles,
  samplePluginTarball,
  writePluginTarball,
} from "@airlock/sdk/package";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";
import { createAdminApi } from "../../host/src/surfaces/http/app.ts";

const SECRET = "sk-names-input-6d2a91";
let t: TestHost;
let app: Hono;
let operator: string;

const seenTool = `async (input) => ({ keys: Object.keys(input), proto: Object.getPrototypeOf(input) === Object.prototype })`;

beforeAll(async () => {
  t = await openTestHost([
    {
      namespace: "payments",
      tools: [
        {
          name: "seen",
          code: seenTool,
          annotations: { readOnlyHint: true },
          inputSchema: { type: "object" },
        },
        {
          name: "files",
          code: `async (input, ctx) => {
            let artifact = "stored";
            try { await ctx.artifacts.put({ buffer: "x", filename: input.name, mime: "text/plain" }); }
            catch (e) { artifact = e.code ?? String(e); }
            let doc = "stored";
            try { await ctx.knowledge.write({ filename: input.name, content: "x" }); }
            catch (e) { doc = e.code ?? String(e); }
            return { artifact, doc, docs: (await ctx.knowledge.list()).length };
          }`,
          annotations: { readOnlyHint: true },
          inputSchema: { type: "object" },
        },
        {
          name: "keyed",
          code: "async () => 'ok'",
          annotations: { readOnlyHint: true },
          requiredSecrets: [{ key: "api_key", type: "text", optional: false, sensitive: true }],
        },
      ],
    },
  ]);
  await t.host.createAgent("ada");
  await t.host.setToolsEnabled("ada", {
    "payments:seen": true,
    "payments:keyed": true,
    "payments:files": true,
  });
  await t.host.setKnowledgeLevel("ada", "write");
  await t.host.setSecrets("ada", { api_key: SECRET });
  operator = (await t.host.issueToken("operator", undefined, "test")).token;
  app = createAdminApi(t.host);
});
afterAll(async () => t?.close());

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: unknown) => (e as { code?: string }).code,
  );
const install = (bytes: Uint8Array, name: string) =>
  t.host.plugins.installTarball(bytes, `/tmp/${name}.tgz`, { allowUnsigned: true });
const sample = (o: Partial<SamplePluginOptions> & { namespace: string }) =>
  samplePluginTarball({ version: "1.0.0", engine: ">=0.1.0", ...o });

type Manifest = {
  description: string;
  tools: Array<{ name: string; annotations: Record<string, unknown> }>;
};
const tool0 = (m: Manifest) => m.tools[0] as Manifest["tools"][number];

async function expectHealthy(): Promise<void> {
  expect((await t.host.listTools()).map((x) => x.namespace)).toEqual(["payments", "payments", "payments"]);
  const out = await t.host.callTool("ada", "payments:keyed", {});
  expect(out.errorCode).toBeUndefined();
  const audit = JSON.stringify(await t.host.queryAudit({ limit: 10_000 }));
  expect(audit).not.toContain(SECRET);
}

async function lastInstallError(): Promise<string | null> {
  const rows = (await t.host.queryAudit({ kind: "admin" })).filter((r) => r.action === "plugin.install");
  return rows[0]?.error ?? null;
}

describe("namespaces", () => {
  it.each(["builtin", "root", "constructor", "prototype", "tool5", "xn--pple-43d", "ab--cd"])(
    "refuses %s at install with AIRLOCK_MANIFEST_INVALID naming $.namespace",
    async (namespace) => {
      const err = await install(sample({ namespace }), namespace).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "AIRLOCK_MANIFEST_INVALID" });
      expect(JSON.stringify((err as { details: unknown }).details)).toContain("$.namespace");
      expect(await lastInstallError()).toBe("AIRLOCK_MANIFEST_INVALID");
      await expectHealthy();
    },
  );

  it.each(["pay-rnents", "payrnents", "pay-ments"])(
    "refuses %s next to the installed payments with AIRLOCK_INSTALL_NAMESPACE_LOOKALIKE",
    async (namespace) => {
      expect(await codeOf(install(sample({ namespace }), namespace))).toBe(
        "AIRLOCK_INSTALL_NAMESPACE_LOOKALIKE",
      );
      expect(await lastInstallError()).toBe("AIRLOCK_INSTALL_NAMESPACE_LOOKALIKE");
      expect(await (await t.store()).listInstalledPlugins(namespace)).toEqual([]);
      await expectHealthy();
    },
  );
});

describe("manifests", () => {
  it.each([
    ["169.254.169.254", "AIRLOCK_MANIFEST_INVALID"],
    ["metadata.google.internal", "AIRLOCK_MANIFEST_INVALID"],
    ["2852039166", "AIRLOCK_MANIFEST_INVALID"],
    ["0.0.0.0", "AIRLOCK_MANIFEST_INVALID"],
    ["224.0.0.1", "AIRLOCK_MANIFEST_INVALID"],
  ])("refuses the egress host %s at install with %s", async (host, code) => {
    const bytes = sample({
      namespace: "fetcher",
      patch: (m) => {
        m.egress = [{ host, schemes: ["http"], ports: [80] }];
      },
    });
    const err = await install(bytes, "fetcher").catch((e: unknown) => e);
    expect(err).toMatchObject({ code });
    expect(JSON.stringify((err as { details: unknown }).details)).toContain("$.egress[0].host");
    expect(await (await t.store()).listInstalledPlugins("fetcher")).toEqual([]);
    await expectHealthy();
  });

  it.each([
    [
      "$.description",
      (m: Manifest) => {
        m.description = "half a pair: \ud800";
      },
    ],
    [
      "$.tools[0].annotations.title",
      (m: Manifest) => {
        tool0(m).annotations.title = "\udfff title";
      },
    ],
  ])("refuses a lone surrogate at %s with AIRLOCK_MANIFEST_NOT_UNICODE naming it", async (path, edit) => {
    const bytes = sample({ namespace: "lonely", patch: (m) => void edit(m as never) });
    const err = await install(bytes, "lonely").catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "AIRLOCK_MANIFEST_NOT_UNICODE", details: { path } });
    expect(await lastInstallError()).toBe("AIRLOCK_MANIFEST_NOT_UNICODE");
    expect(await (await t.store()).listInstalledPlugins("lonely")).toEqual([]);
    await expectHealthy();
  });

  it("refuses a package.json string holding a lone surrogate with AIRLOCK_PACKAGE_JSON_NOT_UNICODE", async () => {
    const files = samplePluginFiles({ namespace: "lonely", version: "1.0.0", engine: ">=0.1.0" });
    const pkg = { ...(JSON.parse(files.packageJson) as object), description: "half a pair: \ud800" };
    const bytes = writePluginTarball({ ...files, packageJson: JSON.stringify(pkg) });
    const err = await install(bytes, "lonely").catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: "AIRLOCK_PACKAGE_JSON_NOT_UNICODE",
      details: { file: "package.json", path: "$.description" },
    });
    expect(await lastInstallError()).toBe("AIRLOCK_PACKAGE_JSON_NOT_UNICODE");
    expect(await (await t.store()).listInstalledPlugins("lonely")).toEqual([]);
    await expectHealthy();
  });

  it("refuses airlock.json with a key twice with AIRLOCK_PACKAGE_JSON_DUPLICATE_KEY", async () => {
    const files = samplePluginFiles({ namespace: "twice", version: "1.0.0", engine: ">=0.1.0" });
    // the second "egress" would win in JSON.parse: a reviewer and the host could read different hosts
    const manifest = files.manifest.replace(/\}\s*$/, ',"egress":[]}');
    const bytes = writePluginTarball({ packageJson: files.packageJson, manifest, bundle: files.bundle });
    const err = await install(bytes, "twice").catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: "AIRLOCK_PACKAGE_JSON_DUPLICATE_KEY",
      details: { key: "egress", path: "$" },
    });
    expect(await lastInstallError()).toBe("AIRLOCK_PACKAGE_JSON_DUPLICATE_KEY");
    await expectHealthy();
  });
});

// U+202E right-to-left override ("\u202Etxt.exe" reads "exe.txt"), U+2066 left-to-right isolate,
// U+200D zero-width joiner, U+200B zero-width space, U+FEFF byte order mark, U+00AD soft hyphen
const FORMAT_CHARACTERS = ["\u202E", "\u2066", "\u200D", "\u200B", "\uFEFF", "\u00AD"].map((c) => [
  `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`,
  c,
]);

describe("names a person reads", () => {
  it.each(FORMAT_CHARACTERS)(
    "refuses %s in an artifact filename and a document filename, storing neither",
    async (_name, c) => {
      const out = await t.host.callTool("ada", "payments:files", { name: `${c}txt.exe` });
      expect(out.errorCode).toBeUndefined();
      expect(out.result.structuredContent).toEqual({
        artifact: "AIRLOCK_ARTIFACT_INVALID",
        doc: "AIRLOCK_KNOWLEDGE_INVALID",
        docs: 0,
      });
      await expectHealthy();
    },
  );

  it("still stores a filename in any script, emoji included", async () => {
    const out = await t.host.callTool("ada", "payments:files", { name: "résumé 履歴書 😀.txt" });
    expect(out.result.structuredContent).toEqual({ artifact: "stored", doc: "stored", docs: 1 });
  });

  it.each(FORMAT_CHARACTERS)(
    "refuses %s in a tool title, a namespace and a tool name at install",
    async (_name, c) => {
      const cases: Array<[string, (m: Manifest) => void, string]> = [
        [
          "titled",
          (m) => {
            tool0(m).annotations.title = `Pay${c}ments`;
          },
          "$.tools[0].annotations.title",
        ],
        [`ti${c}tled`, () => undefined, "$.namespace"],
        [
          "named",
          (m) => {
            tool0(m).name = `pay${c}`;
          },
          "$.tools[0].name",
        ],
      ];
      for (const [namespace, edit, path] of cases) {
        const err = await install(sample({ namespace, patch: (m) => edit(m as never) }), "named").catch(
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ code: "AIRLOCK_MANIFEST_INVALID" });
        expect(JSON.stringify((err as { details: unknown }).details)).toContain(path);
        expect(await lastInstallError()).toBe("AIRLOCK_MANIFEST_INVALID");
      }
      expect((await (await t.store()).listInstalledPlugins()).map((p) => p.namespace)).toEqual(["payments"]);
      await expectHealthy();
    },
  );

  it.each(FORMAT_CHARACTERS)("refuses %s in an agent slug and a secret name", async (_name, c) => {
    expect(await codeOf(t.host.createAgent(`ada${c}`))).toBe("AIRLOCK_AGENT_INVALID_SLUG");
    expect(await codeOf(t.host.setSecrets("ada", { [`api_key${c}`]: SECRET }))).toBe(
      "AIRLOCK_SECRET_UNKNOWN_KEY",
    );
    expect((await t.host.listAgents()).map((a) => a.slug)).toEqual(["ada"]);
    await expectHealthy();
  });
});

describe("tool input (library API)", () => {
  it.each([
    ['{"__proto__":{"admin":true}}', "AIRLOCK_TOOL_INPUT_KEY_FORBIDDEN"],
    ['{"a":{"constructor":{"prototype":1}}}', "AIRLOCK_TOOL_INPUT_KEY_FORBIDDEN"],
    ['{"list":[{"prototype":1}]}', "AIRLOCK_TOOL_INPUT_KEY_FORBIDDEN"],
    ['{"text":"\\ud800"}', "AIRLOCK_TOOL_INPUT_NOT_UNICODE"],
    ['{"\\udfff":1}', "AIRLOCK_TOOL_INPUT_NOT_UNICODE"],
  ])("refuses %s with %s before the tool runs, audited as a refusal", async (json, code) => {
    const out = await t.host.callTool("ada", "payments:seen", JSON.parse(json));
    expect(out.errorCode).toBe(code);
    expect(out.result.isError).toBe(true);
    const row = (await t.host.queryAudit({ kind: "tool", tool: "seen" }))[0];
    expect(row).toMatchObject({ allowed: false, success: false, error: code });
    await expectHealthy();
  });

  it("still takes the same words as values, and paired surrogates", async () => {
    const out = await t.host.callTool("ada", "payments:seen", { text: "__proto__ constructor 😀" });
    expect(out.errorCode).toBeUndefined();
    expect(out.result.structuredContent).toEqual({ keys: ["text"], proto: true });
  });
});

describe("admin API bodies", () => {
  const send = (body: string) =>
    app.request("/api/instances/ada/calls", {
      method: "POST",
      headers: { authorization: `Bearer ${operator}`, "content-type": "application/json" },
      body,
    });

  it.each([
    ['{"tool":"payments:seen","input":{},"tool":"payments:keyed"}', "AIRLOCK_API_DUPLICATE_KEY"],
    ['{"tool":"payments:seen","input":{"a":1,"a":2}}', "AIRLOCK_API_DUPLICATE_KEY"],
    ['{"tool":"payments:seen","input":{"__proto__":{"x":1}}}', "AIRLOCK_API_KEY_FORBIDDEN"],
    ['{"tool":"payments:seen","input":{"t":"\\udc00"}}', "AIRLOCK_API_NOT_UNICODE"],
  ])("answers %s with 400 %s and runs nothing", async (body, code) => {
    const before = (await t.host.queryAudit({ kind: "tool" })).length;
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
    expect((await t.host.queryAudit({ kind: "tool" })).length).toBe(before);
    await expectHealthy();
  });
});
