// Builds the host bundle the `airlock` executable runs (host/bin/airlock.ts via load.ts): the CLI
// (surfaces/cli/main.ts) and everything it imports, the host's and the SDK's TypeScript and the
// npm packages, as ES modules split at the dynamic imports (so `airlock mcp` still loads neither
// the admin server nor undici), in node_modules/.cache/airlock/host-bundle/. Node then neither
// strips types nor resolves packages at start (measured in docs/benchmarks.md, row 0).
// Run by `npm ci` (the root package's `prepare`: node host/src/surfaces/cli/bundle/build.ts), by
// `npm test` before its suites (`--if-stale`: only when a source changed, so no suite's CLI process
// waits for a build), and by the executable itself when the sources changed since (load.ts).
// What stays outside: native and self-locating packages (isolated-vm, esbuild, pg, pg-boss),
// undici (EXTERNAL says why), and
// every file the host reaches by path at run time: `import.meta.url`, `.dirname` and `.filename`
// in the sources are replaced by the source file's own, so the sandbox still forks
// worker-entry.ts, the store still starts its threads, and the isolate runtime, the console UI
// and the first-party plugins are read from the checkout, exactly as when run from source.
// Invariants: the manifest is written last and atomically, after the bundle's files are in place
// under a directory named by their hash; a build never changes a directory another process may
// be running from (a build of the same output finds it there and keeps it).
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, extname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Loader, type Plugin } from "esbuild";
import {
  type BundleInput,
  type BundleManifest,
  checkFreshness,
  DEFAULT_CACHE_DIR,
  describeInput,
  ENTRY_FILE,
  INSTALLED_TREE,
  inputsHash,
  MANIFEST_VERSION,
  REPO_ROOT,
  readManifest,
  sha256,
  writeManifest,
} from "./manifest.ts";

const ENTRY = join(REPO_ROOT, "host", "src", "surfaces", "cli", "main.ts");
const BUILDER = fileURLToPath(import.meta.url);
/** The files that decide what a build produces besides the sources: inputs of every bundle. */
const BUILDER_FILES = [BUILDER, join(dirname(BUILDER), "manifest.ts"), join(REPO_ROOT, INSTALLED_TREE)];

/**
 * Packages loaded from node_modules at run time, not bundled: native code or files they locate
 * (isolated-vm, esbuild, pg), and CommonJS packages the host imports dynamically (undici): split
 * into a chunk of its own, such a package exports only `default`, and `const { request } = await
 * import("undici")` would read undefined, where Node's own import finds the named exports.
 */
export const EXTERNAL = ["isolated-vm", "esbuild", "pg", "pg-boss", "pg-native", "undici"];

/** Build directories not current and untouched this long are removed by the next build. */
const PRUNE_AFTER_MS = 24 * 60 * 60 * 1000;

const LOADERS: Record<string, Loader> = {
  ".ts": "ts",
  ".mts": "ts",
  ".js": "js",
  ".mjs": "js",
  ".cjs": "js",
  ".json": "json",
};

/**
 * Records every file esbuild compiles as the content it compiles (so a file changed during a build
 * reads as changed at the next start), and replaces `import.meta.{url,dirname,filename,main}` in
 * our own sources by the source file's own.
 */
function inputRecorder(inputs: Map<string, BundleInput>): Plugin {
  return {
    name: "airlock-inputs",
    setup(b) {
      b.onLoad({ filter: /.*/ }, (args) => {
        const loader = LOADERS[extname(args.path)];
        if (loader === undefined) return undefined;
        const path = relative(REPO_ROOT, args.path);
        const { size, mtimeMs } = statSync(args.path);
        const bytes = readFileSync(args.path);
        inputs.set(path, { path, sha256: sha256(bytes), size, mtimeMs });
        const text = bytes.toString("utf8");
        if (path.split(sep).includes("node_modules") || !text.includes("import.meta"))
          return { contents: bytes, loader };
        const contents = text
          .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)))
          .replaceAll("import.meta.filename", JSON.stringify(args.path))
          // a module run as a script (`if (import.meta.main)`) is never the bundle's entry
          .replaceAll("import.meta.main", "false");
        return { contents, loader };
      });
    },
  };
}

/** The bundle's files in memory and the inputs esbuild read. */
async function compile(): Promise<{
  files: { path: string; contents: Uint8Array }[];
  inputs: BundleInput[];
}> {
  const inputs = new Map<string, BundleInput>();
  const result = await build({
    entryPoints: { cli: ENTRY },
    absWorkingDir: REPO_ROOT,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    outdir: "out",
    // .mjs: a file under node_modules/ has no package scope ("type": "module" of ours does not
    // reach it), and Node would sniff each .js file's syntax to tell its format
    outExtension: { ".js": ".mjs" },
    write: false,
    metafile: true,
    external: EXTERNAL,
    // CommonJS packages bundled into ES modules still call require() for Node's built-ins
    banner: {
      js: 'import { createRequire as __airlockRequire } from "node:module"; const require = __airlockRequire(import.meta.url);',
    },
    legalComments: "none",
    logLevel: "silent",
    plugins: [inputRecorder(inputs)],
  });
  // anything esbuild read by itself (no loader above) is recorded as it is now
  for (const path of Object.keys(result.metafile.inputs))
    if (!inputs.has(path)) inputs.set(path, describeInput(REPO_ROOT, path));
  for (const file of BUILDER_FILES) {
    const path = relative(REPO_ROOT, file);
    if (!inputs.has(path)) inputs.set(path, describeInput(REPO_ROOT, path));
  }
  const outdir = join(REPO_ROOT, "out");
  return {
    files: result.outputFiles.map((f) => ({ path: relative(outdir, f.path), contents: f.contents })),
    inputs: [...inputs.values()].sort((a, b) => (a.path < b.path ? -1 : 1)),
  };
}

/** Removes build directories that are neither `keep` nor used recently. */
function prune(cacheDir: string, keep: string): void {
  for (const name of readdirSync(cacheDir)) {
    if (name === keep || !name.startsWith("b-")) continue;
    const full = join(cacheDir, name);
    if (Date.now() - statSync(full).mtimeMs > PRUNE_AFTER_MS) rmSync(full, { recursive: true, force: true });
  }
}

/** Builds the bundle into `cacheDir` and records it there; returns its manifest. */
export async function buildHostBundle(cacheDir: string = DEFAULT_CACHE_DIR): Promise<BundleManifest> {
  const { files, inputs } = await compile();
  const outputHash = sha256(files.map((f) => `${f.path}\0${sha256(Buffer.from(f.contents))}`).join("\n"));
  const dir = `b-${outputHash.slice(0, 16)}`;
  mkdirSync(cacheDir, { recursive: true });
  const target = join(cacheDir, dir);
  if (readManifest(cacheDir)?.dir !== dir) {
    const tmp = join(cacheDir, `tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
    mkdirSync(tmp);
    for (const file of files) writeFileSync(join(tmp, file.path), file.contents);
    try {
      renameSync(tmp, target);
    } catch (error) {
      rmSync(tmp, { recursive: true, force: true });
      // another build of the same output put it there first: the same files, keep them
      if (
        (error as NodeJS.ErrnoException).code !== "ENOTEMPTY" &&
        (error as NodeJS.ErrnoException).code !== "EEXIST"
      )
        throw error;
    }
  }
  const manifest: BundleManifest = {
    version: MANIFEST_VERSION,
    root: REPO_ROOT,
    dir,
    inputsHash: inputsHash(inputs),
    inputs,
  };
  writeManifest(cacheDir, manifest);
  prune(cacheDir, dir);
  return manifest;
}

export { ENTRY_FILE };

if (import.meta.main) {
  // --if-stale: build only when the current bundle is not fresh (npm test, before its suites)
  const fresh = process.argv.includes("--if-stale") && checkFreshness(DEFAULT_CACHE_DIR).fresh;
  if (!fresh) {
    const t0 = performance.now();
    const manifest = await buildHostBundle();
    const ms = (performance.now() - t0).toFixed(0);
    process.stdout.write(
      `airlock: host bundle ${manifest.dir} built from ${manifest.inputs.length} files in ${ms} ms (${DEFAULT_CACHE_DIR})\n`,
    );
  }
}
