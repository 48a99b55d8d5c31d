// The two esbuild runs of `airlock-plugin build`:
//  1. bundleForSandbox: the plugin's entry wrapped by a generated entry that calls
//     installPlugin(default export), bundled into ONE classic script (iife, platform neutral,
//     es2023): no imports, no require of anything unbundled, no Node built-ins.
//  2. loadDescription: the same entry plus describe.ts bundled as ESM for Node into a temp
//     file, imported in this process to read tools and schemas (the plugin's top-level code
//     runs here, at build time, on the author's machine).
// Zod: without `runtimeZod` the sandbox bundle's `zod` imports resolve to the stand-in
// (esbuild-plugins.ts zodStandIn); the describe run always loads the REAL Zod.
// Reproducibility: esbuild's `// <path>` module markers are rewritten to paths that do not
// depend on where the plugin or its dependencies sit on the author's disk (`zod/v4/core/api.js`,
// `@airlock/sdk/src/names.ts`, `src/index.ts`), so the bundle leaks no local layout.
// Resolution: bare imports resolve from the plugin directory first; when the plugin cannot
// resolve one (a plugin scaffolded outside any project), it falls back to the node_modules
// folders the SDK itself resolves from, so `@airlock/sdk` and `zod` are the CLI's own.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type BuildFailure, type BuildOptions, build } from "esbuild";
import type { DescribedPlugin } from "./describe.ts";
import { buildFailure, forbidNodeBuiltins, singleZod, zodStandIn } from "./esbuild-plugins.ts";

export const SDK_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DESCRIBE_MODULE = fileURLToPath(new URL("./describe.ts", import.meta.url));

/** The node_modules folders the SDK resolves from (the fallback for a plugin outside any project). */
export function fallbackNodePaths(): string[] {
  const out: string[] = [];
  for (let dir = SDK_ROOT; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules");
    if (existsSync(candidate)) out.push(candidate);
    if (dirname(dir) === dir) return out;
  }
}

function isBuildFailure(err: unknown): err is BuildFailure {
  return typeof err === "object" && err !== null && Array.isArray((err as { errors?: unknown }).errors);
}

async function run(options: BuildOptions, pluginDir: string): Promise<Uint8Array> {
  try {
    const result = await build({
      ...options,
      bundle: true,
      write: false,
      logLevel: "silent",
      absWorkingDir: pluginDir,
    });
    const file = result.outputFiles?.[0];
    if (!file) throw new Error("esbuild produced no output");
    return file.contents;
  } catch (err) {
    if (isBuildFailure(err)) throw buildFailure(err.errors, pluginDir);
    throw err;
  }
}

const MARKER = /^(\s*)\/\/ (\S+\.[cm]?[jt]sx?)$/gm;

/** Rewrites esbuild's module markers (paths relative to pluginDir) to location-independent ones. */
export function neutralizeMarkers(code: string, pluginDir: string): string {
  return code.replace(MARKER, (line, indent: string, marker: string) => {
    const at = marker.lastIndexOf("node_modules/");
    if (at >= 0) return `${indent}// ${marker.slice(at + "node_modules/".length)}`;
    const absolute = resolve(pluginDir, marker);
    const inSdk = relative(SDK_ROOT, absolute);
    if (!inSdk.startsWith("..") && !isAbsolute(inSdk))
      return `${indent}// @airlock/sdk/${inSdk.split(sep).join("/")}`;
    const inPlugin = relative(pluginDir, absolute);
    if (!inPlugin.startsWith("..") && !isAbsolute(inPlugin)) return line;
    return `${indent}// ${basename(absolute)}`;
  });
}

/** The sandbox bundle (index.js) of the plugin whose entry is `entry`. */
export async function bundleForSandbox(
  pluginDir: string,
  entry: string,
  minify: boolean,
  runtimeZod = false,
): Promise<Uint8Array> {
  const contents = [
    `import * as entry from ${JSON.stringify(entry)};`,
    `import { installPlugin } from "@airlock/sdk";`,
    "installPlugin(entry.default);",
  ].join("\n");
  const code = await run(
    {
      stdin: { contents, resolveDir: pluginDir, sourcefile: "airlock-entry.js", loader: "js" },
      format: "iife",
      platform: "neutral",
      target: "es2023",
      mainFields: ["module", "main"],
      conditions: ["import", "default"],
      nodePaths: fallbackNodePaths(),
      minify,
      legalComments: "none",
      // non-ASCII text is written as \u escapes: one such character anywhere (a message in a
      // dependency) makes V8 hold the whole source as a two-byte string, and decoding it on
      // every cold load costs ≈ 2 ms for a 650 KB bundle against ≈ 0.9 for the same in ASCII
      charset: "ascii",
      plugins: [forbidNodeBuiltins(pluginDir), runtimeZod ? singleZod(pluginDir) : zodStandIn(pluginDir)],
    },
    pluginDir,
  );
  return minify
    ? code
    : new TextEncoder().encode(neutralizeMarkers(new TextDecoder().decode(code), pluginDir));
}

/** Loads the plugin in this process and describes it (tools, JSON Schemas, checked examples). */
export async function loadDescription(pluginDir: string, entry: string): Promise<DescribedPlugin> {
  const contents = [
    `import * as entry from ${JSON.stringify(entry)};`,
    `export { describePlugin } from ${JSON.stringify(DESCRIBE_MODULE)};`,
    "export const plugin = entry.default;",
  ].join("\n");
  const code = await run(
    {
      stdin: { contents, resolveDir: pluginDir, sourcefile: "airlock-describe.js", loader: "js" },
      format: "esm",
      platform: "node",
      target: "node24",
      nodePaths: fallbackNodePaths(),
      plugins: [singleZod(pluginDir)],
    },
    pluginDir,
  );
  const dir = await mkdtemp(join(tmpdir(), "airlock-build-"));
  try {
    const file = join(dir, "describe.mjs");
    await writeFile(file, code);
    const mod = (await import(pathToFileURL(file).href)) as {
      describePlugin: (plugin: unknown) => DescribedPlugin;
      plugin: unknown;
    };
    return mod.describePlugin(mod.plugin);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
