// Plugin UIs in the build and the tarball: each UI made self-contained, listed with its sha512,
// packed into the tarball and verified by the reader; the build refuses CSP origins outside
// egress, tools naming undeclared UIs, missing files and local files it cannot inline.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { list } from "tar";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { copyFixture, type FixtureCopy, rejection } from "../../test/support/fixtures.ts";
import { UI_MIME_TYPE, uiProblems } from "../apps-format.ts";
import { definePlugin } from "../define-plugin.ts";
import { defineTool } from "../define-tool.ts";
import { gzip, tarArchive } from "../package/craft-tar.ts";
import { readPluginTarball } from "../package/read-plugin-tarball.ts";
import { integrityOf } from "../signing.ts";
import { buildPlugin } from "./build-plugin.ts";
import { packPlugin } from "./pack.ts";

const copies: FixtureCopy[] = [];
async function fixture(): Promise<string> {
  const copy = await copyFixture("apps");
  copies.push(copy);
  return copy.dir;
}
afterEach(async () => {
  await Promise.all(copies.splice(0).map((c) => c.remove()));
});

async function edit(dir: string, file: string, from: string | RegExp, to: string): Promise<void> {
  const path = join(dir, file);
  const text = await readFile(path, "utf8");
  const next = text.replace(from, to);
  expect(next).not.toBe(text);
  await writeFile(path, next);
}

describe("plugin UIs in the build", () => {
  it("inlines a UI's local script and stylesheet into one file listed with its sha512", async () => {
    const dir = await fixture();
    const { manifest } = await buildPlugin(dir);
    const html = await readFile(join(dir, "dist/ui/bars.html"));
    expect(manifest.ui).toEqual([
      {
        name: "bars",
        file: "ui/bars.html",
        integrity: integrityOf(html),
        size: html.byteLength,
        title: "Bars",
        description: "The values as bars.",
        csp: { connectDomains: ["https://api.bars.example"], resourceDomains: ["https://img.cdn.example"] },
        prefersBorder: true,
      },
    ]);
    const text = html.toString("utf8");
    expect(text).not.toMatch(/\bsrc=|\bhref=/); // nothing left to fetch
    expect(text).toContain("<style>.bar{"); // the stylesheet, inlined
    expect(text).toMatch(/<script type="module">[^<]*Math\.round/); // widths.js bundled into bars.js
    // @airlock/sdk/apps bundled in, though the copy sits outside any project (no node_modules)
    expect(text).toContain('"ui/initialize"');
    expect(manifest.tools.map((t) => [t.name, t.ui, t.visibility])).toEqual([
      ["showBars", "bars", undefined],
      ["refreshBars", "bars", ["app"]],
    ]);
    expect(UI_MIME_TYPE).toBe("text/html;profile=mcp-app");
  });

  it("packs the UI into the tarball, where the reader verifies it against the manifest", async () => {
    const dir = await fixture();
    await buildPlugin(dir);
    const { file } = await packPlugin(dir);
    const paths: string[] = [];
    await list({ file, onReadEntry: (e) => void paths.push(e.path) });
    expect(paths).toEqual([
      "package/package.json",
      "package/airlock.json",
      "package/index.js",
      "package/ui/bars.html",
    ]);
    const tarball = await readPluginTarball(await readFile(file));
    expect([...tarball.files.ui.keys()]).toEqual(["bars"]);
    expect(Buffer.from(tarball.files.ui.get("bars") ?? [])).toEqual(
      await readFile(join(dir, "dist/ui/bars.html")),
    );
  });

  it("refuses a CSP origin whose host is not an egress host", async () => {
    const dir = await fixture();
    await edit(dir, "src/index.ts", '"https://api.bars.example"', '"https://evil.example"');
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_BUILD_UI_CSP");
    expect(err.message).toContain("ui[0].csp.connectDomains[0]");
  });

  it("refuses a CSP entry that is not an https or wss origin", () => {
    const problems = uiProblems({
      ui: [
        { name: "x", csp: { resourceDomains: ["http://api.bars.example", "https://api.bars.example/path"] } },
      ],
      egress: [{ host: "api.bars.example" }],
      tools: [],
    });
    expect(problems.map((p) => [p.kind, p.path])).toEqual([
      ["csp", "$.ui[0].csp.resourceDomains[0]"],
      ["csp", "$.ui[0].csp.resourceDomains[1]"],
    ]);
  });

  it("refuses a tool naming a UI the plugin does not declare", async () => {
    const dir = await fixture();
    await edit(
      dir,
      "src/index.ts",
      'ui: "bars",\n  execute: ({ values })',
      'ui: "pie",\n  execute: ({ values })',
    );
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_BUILD_UI_UNKNOWN");
    expect(err.message).toContain('names the UI "pie"');
  });

  it("refuses a UI whose file is missing", async () => {
    const dir = await fixture();
    await edit(dir, "src/index.ts", '"ui/bars.html"', '"ui/gone.html"');
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_BUILD_UI_MISSING");
  });

  it("refuses a UI that references a local file it cannot inline", async () => {
    const dir = await fixture();
    await edit(dir, "ui/bars.html", '<div id="bars"></div>', '<img src="./logo.png" /><div id="bars"></div>');
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_BUILD_UI_ASSET");
    expect(err.message).toContain("./logo.png");
  });
});

describe("plugin UIs in definePlugin and defineTool", () => {
  const tool = (extra: Record<string, unknown> = {}) =>
    defineTool({
      name: "show",
      description: "Shows.",
      parameters: z.object({}),
      execute: () => "ok",
      ...extra,
    });
  const plugin = (ui: unknown) =>
    definePlugin({ namespace: "shapes", version: "1.0.0", engine: "^1.0.0", tools: [tool()], ui } as never);

  it("refuses a UI declaration of the wrong shape, naming the field", () => {
    expect(() => plugin([{ name: "Bad Name", file: "ui/x.html" }])).toThrow(/ui\[0\]\.name/);
    expect(() => plugin([{ name: "x", file: "ui/x.js" }])).toThrow(/ui\[0\]\.file/);
    expect(() => plugin([{ name: "x", file: "ui/x.html", csp: { frameDomains: [] } }])).toThrow(
      /ui\[0\]\.csp\.frameDomains/,
    );
    expect(() => plugin([{ name: "x", file: "ui/x.html", script: "x" }])).toThrow(/ui\[0\]\.script/);
    expect(() => plugin(Array.from({ length: 9 }, (_, i) => ({ name: `u${i}`, file: "x.html" })))).toThrow(
      /at most 8/,
    );
    expect(plugin([{ name: "x", file: "ui/x.html", prefersBorder: false }]).ui).toEqual([
      { name: "x", file: "ui/x.html", prefersBorder: false },
    ]);
  });

  it("refuses a tool's ui or visibility of the wrong shape", () => {
    expect(() => tool({ ui: "Not A Name" })).toThrow(
      expect.objectContaining({ code: "AIRLOCK_SDK_TOOL_INVALID" }),
    );
    for (const visibility of [[], ["agent"], ["app", "app"], "app"]) {
      expect(() => tool({ visibility })).toThrow(/visibility/);
    }
    expect(tool({ ui: "x", visibility: ["app"] })).toMatchObject({ ui: "x", visibility: ["app"] });
  });

  it("accepts the package/ui/ directory entry an npm-style packer writes", async () => {
    const dir = await fixture();
    await buildPlugin(dir);
    const read = (f: string) => readFile(join(dir, "dist", f));
    const bytes = gzip(
      tarArchive([
        { path: "package/package.json", body: await read("package.json") },
        { path: "package/airlock.json", body: await read("airlock.json") },
        { path: "package/index.js", body: await read("index.js") },
        { path: "package/ui/", type: "5" },
        { path: "package/ui/bars.html", body: await read("ui/bars.html") },
      ]),
    );
    expect([...(await readPluginTarball(bytes)).files.ui.keys()]).toEqual(["bars"]);
  });
});
