// Plugin UIs in the build and the tarball: each UI made self-contained, listed with its sha512,
// packed into the tarball and verified by the reader; the build refuses CSP origins outside
// egress, tools naming undeclared UIs, missing files and local files it cannot inline.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { list } from "tar";
import { afterEach, describe, expect, it } from "vitest";
import { copyFixture, type FixtureCopy, rejection } from "../../test/support/fixtures.ts";
import { UI_MIME_TYPE, uiProblems } from "../apps-format.ts";
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
