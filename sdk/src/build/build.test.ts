import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import vm from "node:vm";
import { list } from "tar";
import { afterEach, describe, expect, it } from "vitest";
import { copyFixture, type FixtureCopy, rejection } from "../../test/support/fixtures.ts";
import { PLUGIN_GLOBAL, parseManifest, SDK_VERSION } from "../manifest.ts";
import { integrityOf } from "../signing.ts";
import { buildPlugin } from "./build-plugin.ts";
import { packPlugin } from "./pack.ts";

const copies: FixtureCopy[] = [];
async function fixture(name: string): Promise<string> {
  const copy = await copyFixture(name);
  copies.push(copy);
  return copy.dir;
}
afterEach(async () => {
  await Promise.all(copies.splice(0).map((c) => c.remove()));
});

describe("build", () => {
  it("writes a manifest generated from the code, and a bundle that runs as a classic script", async () => {
    const dir = await fixture("notes");
    const { manifest } = await buildPlugin(dir);
    expect(manifest).toMatchObject({
      namespace: "fixture-notes",
      version: "0.3.0",
      sdk: SDK_VERSION,
      knowledge: "write",
    });
    const search = manifest.tools.find((t) => t.name === "searchNotes");
    expect(search?.description).toBe(
      'Searches the notes for a phrase.\n\nExamples:\n- minimal: {"query":"groceries","limit":null}',
    );
    expect(search?.presentation).toEqual({ label: "Notes", icon: "note", tone: "info", group: "notes" });
    expect(search?.requiredSecrets.map((s) => s.sensitive)).toEqual([true, false]);
    expect(search?.inputSchema).toMatchObject({ required: ["query", "limit"], additionalProperties: false });
    expect(manifest.tools.find((t) => t.name === "appendNote")?.outputSchema).toMatchObject({
      type: "object",
    });

    const onDisk = JSON.parse(await readFile(join(dir, "dist/airlock.json"), "utf8"));
    expect(parseManifest(onDisk)).toEqual(manifest);
    // The manifest schema holds tool names to the same rule as defineTool: camelCase or snake_case.
    const renamed = (name: string) => ({ ...onDisk, tools: [{ ...onDisk.tools[0], name }] });
    expect(parseManifest(renamed("search_notes")).tools[0]?.name).toBe("search_notes");
    expect(() => parseManifest(renamed("Search-Notes"))).toThrow(
      /\$\.tools\[0\]\.name: tool names are camelCase or snake_case/,
    );
    const bundle = await readFile(join(dir, "dist/index.js"));
    expect(manifest.bundle).toEqual({
      file: "index.js",
      integrity: integrityOf(bundle),
      size: bundle.byteLength,
    });

    expect(bundle.toString("utf8")).not.toContain("invalid plugin manifest"); // no host-side code rides along
    expect(bundle.toString("utf8")).not.toContain(tmpdir()); // no trace of where the plugin sits on disk
    expect(bundle.toString("utf8")).not.toMatch(/^\s*\/\/ \.\.\//m);
    expect(bundle.toString("utf8")).toContain("// src/search-notes.ts");
    expect(bundle.toString("utf8")).toContain("// @airlock/sdk/src/define-tool.ts");
    const sandbox = vm.createContext({});
    vm.runInContext(bundle.toString("utf8"), sandbox);
    const plugin = sandbox[PLUGIN_GLOBAL] as {
      namespace: string;
      tools: Record<string, (i: unknown, c: unknown) => Promise<unknown>>;
    };
    expect(plugin.namespace).toBe("fixture-notes");
    expect(Object.keys(plugin.tools)).toEqual(["searchNotes", "appendNote"]);
    await expect(plugin.tools.searchNotes?.({ query: "milk", limit: null }, {})).resolves.toEqual({
      success: true,
      result: { query: "milk", limit: 10 },
    });
    // No Zod in the bundle: input is the host's to validate (zod-runtime.test.ts covers runtimeZod).
    expect(bundle.toString("utf8")).not.toContain("zod/v4/core");
    await expect(plugin.tools.searchNotes?.({ query: "x", limit: 3 }, {})).resolves.toEqual({
      success: true,
      result: { query: "x", limit: 3 },
    });
  });

  it("writes an ASCII-only bundle whose non-ASCII text, escaped, comes back exactly", async () => {
    const dir = await fixture("notes");
    const text = "naïve «café» — ✓ 😀 \u2028 日本";
    const file = join(dir, "src/search-notes.ts");
    const source = await readFile(file, "utf8");
    await writeFile(
      file,
      source.replace(
        "result: { query: input.query, limit: input.limit ?? 10 }",
        `result: { query: input.query, limit: input.limit ?? 10, note: ${JSON.stringify(text)} }`,
      ),
    );
    const { manifest } = await buildPlugin(dir);
    const bundle = await readFile(join(dir, "dist/index.js"));
    // one byte per character: V8 keeps the source as a one-byte string (cheaper to decode and hold)
    expect(bundle.every((byte) => byte < 0x80)).toBe(true);
    expect(manifest.bundle.size).toBe(bundle.byteLength);
    const sandbox = vm.createContext({});
    vm.runInContext(bundle.toString("utf8"), sandbox);
    const plugin = sandbox[PLUGIN_GLOBAL] as {
      tools: Record<string, (i: unknown, c: unknown) => Promise<{ result: { note: string } }>>;
    };
    const out = await plugin.tools.searchNotes?.({ query: "ünïcödé", limit: null }, {});
    expect(out?.result).toEqual({ query: "ünïcödé", limit: 10, note: text });
  });

  it("gives the same bundle integrity wherever the plugin sits on disk", async () => {
    const first = await buildPlugin(await fixture("notes"));
    const second = await buildPlugin(await fixture("notes"));
    expect(second.manifest.bundle.integrity).toBe(first.manifest.bundle.integrity);
  });

  it("refuses an import of node:fs, naming the import and the importing file, and writes nothing", async () => {
    const dir = await fixture("forbidden-import");
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_BUILD_FORBIDDEN_IMPORT");
    expect(err.message).toContain('"node:fs"');
    expect(err.message).toContain("src/lib/disk.ts");
    expect(existsSync(join(dir, "dist"))).toBe(false);
  });

  it("refuses a bare built-in (fs) and a module that cannot be resolved", async () => {
    const dir = await fixture("forbidden-import");
    await writeFile(
      join(dir, "src/lib/disk.ts"),
      'import fs from "fs";\nimport pad from "no-such-module-xyz";\nexport const readDisk = (p: string) => pad(fs.readFileSync(p, "utf8"));\n',
    );
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_BUILD_FORBIDDEN_IMPORT");
    expect(err.message).toContain('"fs"');
    expect(err.message).toContain('"no-such-module-xyz"');
    expect(err.details?.imports).toEqual(
      expect.arrayContaining([expect.objectContaining({ import: "no-such-module-xyz" })]),
    );
  });

  it("fails on a strict-mode violation with every path and fix, and writes nothing", async () => {
    const dir = await fixture("lint-violation");
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_LINT_FAILED");
    const violations = err.details?.violations as Array<{ rule: string; path: string; fix: string }>;
    expect(violations.map((v) => `${v.rule} ${v.path}`)).toEqual([
      "format $.properties.url",
      "optional $.properties.limit",
      "description $.properties.raw",
    ]);
    expect(err.message).toContain("fix:");
    expect(existsSync(join(dir, "dist"))).toBe(false);
  });

  it("fails on an input example that does not match, naming its label", async () => {
    const err = await rejection(async () => buildPlugin(await fixture("bad-example")));
    expect(err.code).toBe("AIRLOCK_SDK_EXAMPLE_INVALID");
    expect(err.message).toContain('"strings instead of numbers"');
  });

  it("surfaces a definition-time error of the plugin's own code with its code", async () => {
    const dir = await fixture("bad-example");
    const source = await readFile(join(dir, "src/index.ts"), "utf8");
    await writeFile(join(dir, "src/index.ts"), source.replace('name: "addNumbers"', 'name: "Add-Numbers"'));
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_TOOL_NAME");
    expect(err.message).toContain("Add-Numbers");
  });

  it("fails with AIRLOCK_SDK_BUILD_FAILED on a syntax error, and BUILD_SCHEMA on a schema JSON cannot express", async () => {
    const dir = await fixture("bad-example");
    const source = await readFile(join(dir, "src/index.ts"), "utf8");
    await writeFile(join(dir, "src/index.ts"), `${source}\nconst broken = ;\n`);
    const syntax = await rejection(() => buildPlugin(dir));
    expect(syntax.code).toBe("AIRLOCK_SDK_BUILD_FAILED");
    expect(syntax.message).toContain("src/index.ts");
    await writeFile(
      join(dir, "src/index.ts"),
      source
        .replace('a: z.number().describe("First.")', 'a: z.date().describe("First.")')
        .replace(/inputExamples: \[[\s\S]*?\],\n/, ""),
    );
    const schema = await rejection(() => buildPlugin(dir));
    expect(schema.code).toBe("AIRLOCK_SDK_BUILD_SCHEMA");
    expect(schema.message).toContain("addNumbers");
  });

  it("refuses an entry without a definePlugin default export, and a missing entry", async () => {
    const dir = await fixture("bad-example");
    await writeFile(join(dir, "src/index.ts"), "export const nothing = 1;\n");
    expect((await rejection(() => buildPlugin(dir))).code).toBe("AIRLOCK_SDK_BUILD_ENTRY");
    await writeFile(join(dir, "package.json"), JSON.stringify({ airlock: { entry: "src/main.ts" } }));
    const missing = await rejection(() => buildPlugin(dir));
    expect(missing.code).toBe("AIRLOCK_SDK_BUILD_ENTRY");
    expect(missing.message).toContain("src/main.ts");
  });
});

describe("pack", () => {
  it("writes <namespace>-<version>.tgz with exactly the three package/ entries, deterministic", async () => {
    const dir = await fixture("notes");
    const { manifest } = await buildPlugin(dir);
    const packed = await packPlugin(dir);
    expect(packed.file).toBe(join(dir, "fixture-notes-0.3.0.tgz"));
    const bytes = await readFile(packed.file);
    expect(packed.integrity).toBe(integrityOf(bytes));

    const entries: Array<{
      path: string;
      mode: number;
      uid: number;
      gid: number;
      mtime: number;
      body: string;
    }> = [];
    await list({
      file: packed.file,
      onReadEntry: (entry) => {
        const chunks: Buffer[] = [];
        entry.on("data", (c: Buffer) => chunks.push(c));
        entry.on("end", () =>
          entries.push({
            path: entry.path,
            mode: entry.mode ?? -1,
            uid: entry.uid ?? 0,
            gid: entry.gid ?? 0,
            mtime: entry.mtime?.getTime() ?? -1,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    });
    expect(entries.map((e) => e.path)).toEqual([
      "package/package.json",
      "package/airlock.json",
      "package/index.js",
    ]);
    for (const e of entries) {
      expect(e).toMatchObject({ mode: 0o644, uid: 0, gid: 0, mtime: Date.parse("1985-10-26T08:15:00Z") });
    }
    expect(parseManifest(JSON.parse(entries[1]?.body ?? ""))).toEqual(manifest);
    expect(JSON.parse(entries[0]?.body ?? "")).toMatchObject({
      name: "@fixtures/notes",
      version: "0.3.0",
      main: "index.js",
    });
    expect(integrityOf(Buffer.from(entries[2]?.body ?? "", "utf8"))).toBe(manifest.bundle.integrity);

    await mkdir(join(dir, "again"));
    const again = await packPlugin(dir, join(dir, "again"));
    expect(again.integrity).toBe(packed.integrity);
  });

  it("refuses to pack before a build, and after dist/index.js was changed", async () => {
    const dir = await fixture("notes");
    expect((await rejection(() => packPlugin(dir))).code).toBe("AIRLOCK_SDK_NOT_BUILT");
    await buildPlugin(dir);
    await writeFile(join(dir, "dist/index.js"), "globalThis.evil = 1;");
    expect((await rejection(() => packPlugin(dir))).code).toBe("AIRLOCK_SDK_NOT_BUILT");
  });
});
