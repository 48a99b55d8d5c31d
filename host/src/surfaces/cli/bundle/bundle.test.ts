// The host bundle the `airlock` executable runs is the sources' own: built from every input as it
// is now (checked file by file against the hashes the bundle records), refused when an input
// changed, and what `airlock` actually loads (not the sources). Nothing in the repository is
// edited: staleness is shown on a copy of the manifest in a temporary cache directory.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureHostBundle } from "./load.ts";
import {
  type BundleManifest,
  checkFreshness,
  DEFAULT_CACHE_DIR,
  ENTRY_FILE,
  inputsHash,
  manifestPath,
  REPO_ROOT,
  readManifest,
  sha256,
  writeManifest,
} from "./manifest.ts";

const BIN = join(REPO_ROOT, "host", "bin", "airlock.ts");
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A temporary cache directory holding a copy of the current bundle and its manifest. */
function copyOfCurrent(): { dir: string; manifest: BundleManifest } {
  const manifest = readManifest(DEFAULT_CACHE_DIR);
  if (manifest === null) throw new Error("no current bundle");
  const dir = mkdtempSync(join(tmpdir(), "airlock-bundle-"));
  temps.push(dir);
  cpSync(join(DEFAULT_CACHE_DIR, manifest.dir), join(dir, manifest.dir), { recursive: true });
  cpSync(manifestPath(DEFAULT_CACHE_DIR), manifestPath(dir));
  return { dir, manifest };
}

describe("the host bundle", () => {
  it("is built from every input as it is now: each recorded hash is the file's", async () => {
    await ensureHostBundle(); // what `airlock` does first: rebuilds when a source changed
    const manifest = readManifest(DEFAULT_CACHE_DIR) as BundleManifest;
    const now = manifest.inputs.map((i) => ({
      path: i.path,
      sha256: sha256(readFileSync(join(REPO_ROOT, i.path))),
    }));
    expect(now.filter((n, k) => n.sha256 !== manifest.inputs[k]?.sha256).map((n) => n.path)).toEqual([]);
    expect(inputsHash(now)).toBe(manifest.inputsHash);
    // the inputs are the sources the CLI runs and the packages bundled in
    const paths = manifest.inputs.map((i) => i.path);
    expect(paths).toContain("host/src/surfaces/cli/main.ts");
    expect(paths).toContain("host/src/surfaces/mcp/stdio.ts");
    expect(paths).toContain("sdk/src/manifest.ts");
    expect(paths.some((p) => p.startsWith("node_modules/@modelcontextprotocol/server/"))).toBe(true);
    expect(paths.some((p) => p.startsWith("node_modules/isolated-vm/"))).toBe(false); // external
    expect(checkFreshness(DEFAULT_CACHE_DIR, { full: true }).fresh).toBe(true);
  });

  it("has no chunk that is a CommonJS module exporting only `default` (its named exports lost)", async () => {
    const dir = dirname((await ensureHostBundle()).entry);
    const lost = readdirSync(dir).filter((f) =>
      /^export default require_/m.test(readFileSync(join(dir, f), "utf8")),
    );
    expect(lost).toEqual([]);
  });

  it("is refused when an input's content differs from what it was built from", () => {
    const { dir, manifest } = copyOfCurrent();
    const input = manifest.inputs.find((i) => i.path === "host/src/surfaces/cli/main.ts")!;
    input.sha256 = sha256("an older main.ts");
    input.mtimeMs -= 1000; // as when the file was edited since: its stat differs too
    writeManifest(dir, manifest);
    expect(checkFreshness(dir)).toEqual({ fresh: false, reason: "host/src/surfaces/cli/main.ts changed" });
  });

  it("is refused when a package's installed tree changed, and when built for another checkout", () => {
    const { dir, manifest } = copyOfCurrent();
    const tree = manifest.inputs.find((i) => i.path === "node_modules/.package-lock.json")!;
    tree.sha256 = sha256("another install");
    tree.size += 1;
    writeManifest(dir, manifest);
    expect(checkFreshness(dir).fresh).toBe(false);
    const other = copyOfCurrent();
    writeManifest(other.dir, { ...other.manifest, root: "/elsewhere/airlock/" });
    expect(checkFreshness(other.dir)).toEqual({ fresh: false, reason: "built for /elsewhere/airlock/" });
  });

  it("still runs when a file was only touched (same content, new mtime)", () => {
    const { dir, manifest } = copyOfCurrent();
    const input = manifest.inputs.find((i) => i.path === "host/src/host.ts")!;
    input.mtimeMs -= 1000;
    writeManifest(dir, manifest);
    const state = checkFreshness(dir);
    expect(state.fresh && state.touched).toBe(1);
  });

  it("is rebuilt, not run, by the executable's loader when stale", async () => {
    const { dir, manifest } = copyOfCurrent();
    const input = manifest.inputs.find((i) => i.path === "sdk/src/manifest.ts")!;
    input.sha256 = sha256("stale");
    input.size += 1;
    writeManifest(dir, manifest);
    const result = await ensureHostBundle(dir);
    expect(result.rebuilt).toBe(true);
    expect(result.entry).toBe(join(dir, readManifest(dir)!.dir, ENTRY_FILE));
    expect(checkFreshness(dir, { full: true }).fresh).toBe(true);
  }, 120_000);

  it("is what `airlock mcp` loads: no host or SDK source beyond the loader", () => {
    const script = `
      import { registerHooks } from "node:module";
      import { writeSync } from "node:fs";
      const urls = [];
      registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); urls.push(r.url); return r; } });
      process.on("exit", () => writeSync(1, "\\n@@urls@@" + JSON.stringify(urls)));
      process.argv = [process.argv[0], ${JSON.stringify(BIN)}, "mcp", "--help"];
      await import(${JSON.stringify(BIN)});
    `;
    const out = execFileSync(process.execPath, ["--no-node-snapshot", "--input-type=module", "-e", script], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(out).toContain("Usage: airlock mcp --agent <slug>");
    const urls = JSON.parse(out.slice(out.indexOf("@@urls@@") + 8)) as string[];
    const sources = urls.filter((u) => u.includes("/host/src/") || u.includes("/sdk/src/"));
    expect(sources.map((u) => u.slice(u.lastIndexOf("/src/") + 5)).sort()).toEqual([
      "compile-cache.ts",
      "surfaces/cli/bundle/load.ts",
      "surfaces/cli/bundle/manifest.ts",
    ]);
    expect(
      urls.some((u) => u.includes("/node_modules/.cache/airlock/host-bundle/") && u.endsWith(ENTRY_FILE)),
    ).toBe(true);
  });
});
