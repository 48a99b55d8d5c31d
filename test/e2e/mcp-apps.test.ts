// Plugin UIs as MCP Apps, end to end: a plugin with a UI is built and packed by the SDK, installed
// through the real installer, and an official SDK v2 client in each era (2025-11-25 by default,
// 2026-07-28 negotiated with `versionNegotiation: { mode: "auto" }`) sees the extension in the
// server's capabilities, the tool's `_meta.ui` (resource URI, visibility), the `ui://` resource
// in resources/list, and reads it back as `text/html;profile=mcp-app` with its CSP, whose bytes
// hash to the sha512 the signed manifest lists.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlugin } from "../../sdk/src/build/build-plugin.ts";
import { packPlugin } from "../../sdk/src/build/pack.ts";
import type { PluginManifest } from "../../sdk/src/manifest.ts";
import { copyFixture, type FixtureCopy } from "../../sdk/test/support/fixtures.ts";
import { repeatUntilTold } from "../support/list-changes.ts";
import { type RemoteHost, startRemoteHost } from "../support/remote-host.ts";

let copy: FixtureCopy;
let h: RemoteHost;
let manifest: PluginManifest;

beforeAll(async () => {
  copy = await copyFixture("apps");
  ({ manifest } = await buildPlugin(copy.dir));
  const packed = await packPlugin(copy.dir);
  h = await startRemoteHost();
  await h.host.plugins.installTarball(await readFile(packed.file), "test", { allowUnsigned: true });
  await h.host.setToolsEnabled("alpha", { "fixture-apps:showBars": true, "fixture-apps:refreshBars": true });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await copy?.remove();
});

async function connect(era: "2025" | "2026", agent = "alpha", onResources?: () => void): Promise<Client> {
  const client = new Client(
    { name: "apps-e2e", version: "1.0.0" },
    {
      ...(era === "2026" ? { versionNegotiation: { mode: "auto" as const } } : {}),
      ...(onResources === undefined
        ? {}
        : { listChanged: { resources: { autoRefresh: false, debounceMs: 0, onChanged: onResources } } }),
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(h.server.mcpUrl(agent)), {
      requestInit: { headers: { authorization: `Bearer ${h.tokens[agent]}` } },
    }),
  );
  return client;
}

describe.each(["2025", "2026"] as const)("MCP Apps, %s era", (era) => {
  it("lists the tool with _meta.ui and serves its UI as the resource the manifest hashes", async () => {
    const client = await connect(era);
    expect(client.getProtocolEra()).toBe(era === "2026" ? "modern" : "legacy");
    expect(client.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/ui"]).toEqual({
      mimeTypes: ["text/html;profile=mcp-app"],
    });
    const tools = (await client.listTools()).tools;
    const show = tools.find((t) => t.name === "fixture-apps__showBars");
    expect(show?._meta?.ui).toEqual({ resourceUri: "ui://fixture-apps/bars" });
    // Only the app may call refreshBars: listed with its visibility, for the client to keep
    // from its model (SEP-1865: the host filters, the server lists).
    const refresh = tools.find((t) => t.name === "fixture-apps__refreshBars");
    expect(refresh?._meta?.ui).toEqual({ resourceUri: "ui://fixture-apps/bars", visibility: ["app"] });

    const resources = (await client.listResources()).resources;
    expect(resources).toEqual([
      {
        uri: "ui://fixture-apps/bars",
        name: "bars",
        title: "Bars",
        description: "The values as bars.",
        mimeType: "text/html;profile=mcp-app",
        _meta: expect.objectContaining({ ui: expect.objectContaining({ prefersBorder: true }) }),
      },
    ]);
    const read = await client.readResource({ uri: "ui://fixture-apps/bars" });
    const content = read.contents[0] as {
      uri: string;
      mimeType?: string;
      text?: string;
      _meta?: Record<string, unknown>;
    };
    expect(content.uri).toBe("ui://fixture-apps/bars");
    expect(content.mimeType).toBe("text/html;profile=mcp-app");
    expect(content._meta?.ui).toEqual({
      csp: { connectDomains: ["https://api.bars.example"], resourceDomains: ["https://img.cdn.example"] },
      prefersBorder: true,
    });
    const html = content.text ?? "";
    expect(html).toContain('<div id="bars"></div>');
    const digest = `sha512-${createHash("sha512").update(html, "utf8").digest("base64")}`;
    expect(digest).toBe(manifest.ui?.[0]?.integrity);
    expect(digest).toBe(
      `sha512-${createHash("sha512")
        .update(await readFile(join(copy.dir, "dist/ui/bars.html")))
        .digest("base64")}`,
    );

    const called = await client.callTool({ name: "fixture-apps__showBars", arguments: { values: [2, 4] } });
    expect(called.structuredContent).toEqual({ values: [2, 4] });
    await client.close();
  });

  it("tells a connected client its resource list changed when the agent's tools change", async () => {
    let told: (() => void) | undefined;
    const next = () =>
      new Promise<void>((resolve) => {
        told = resolve;
      });
    const client = await connect(era, "alpha", () => told?.());
    const enable = (on: boolean) =>
      h.host.setToolsEnabled("alpha", { "fixture-apps:showBars": on, "fixture-apps:refreshBars": on });
    await repeatUntilTold(() => enable(false), next());
    expect((await client.listResources()).resources).toEqual([]);
    await repeatUntilTold(() => enable(true), next());
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["ui://fixture-apps/bars"]);
    await client.close();
  });

  it("lists no UI to an agent none of whose enabled tools names one", async () => {
    const client = await connect(era, "beta");
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
  });
});

describe("MCP Apps and code mode", () => {
  it("leaves a tool only the app may call out of the model-written code's tools", async () => {
    await h.host.setCodeMode("alpha", { enabled: true });
    const client = await connect("2025");
    const found = await client.callTool({ name: "search_tools", arguments: { query: "bars" } });
    const text = (found.content as Array<{ text?: string }>)[0]?.text ?? "";
    expect(text).toContain("function showBars(");
    expect(text).not.toContain("refreshBars");
    await client.close();
    await h.host.setCodeMode("alpha", { enabled: false });
  });
});
