// The record a host bundle keeps of what it was built from (bundle/build.ts writes it, the `airlock`
// executable reads it on every start, bundle/load.ts): every input file esbuild read (the host's
// and the SDK's sources, the npm packages bundled in, the builder itself) with its SHA-256, size
// and mtime, and the directory holding the bundle's files. The source stays the truth: a bundle
// is run only while every input still has the content it was built from.
// Checking is cheap on the usual path: a file whose size and mtime are as recorded is taken as
// unchanged (one stat); any other is read and hashed, and only a different hash makes the bundle
// stale (a checkout that touched a file without changing it costs one hash, not a rebuild). At
// start the npm packages' files (two thirds of the inputs, ~15–50 ms of stats) are checked through
// npm's own record of the installed tree, node_modules/.package-lock.json (rewritten by every
// install), also an input; the full check (`full`, the test beside this file) takes every file.
// Invariants: this file imports node built-ins only (it runs before the bundle, from source);
// a missing, unreadable or malformed manifest reads as "no bundle", never as a fresh one.
import { createHash } from "node:crypto";
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Bumped when the manifest's shape or the builder's output layout changes. */
export const MANIFEST_VERSION = 1;

/** The repository root (this file is host/src/surfaces/cli/bundle/manifest.ts). */
export const REPO_ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));

/** Where bundles are cached: beside the packages they import (isolated-vm, pg, esbuild). */
export const DEFAULT_CACHE_DIR = join(REPO_ROOT, "node_modules", ".cache", "airlock", "host-bundle");

/** npm's record of the installed packages: stands for their files at start (see the header). */
export const INSTALLED_TREE = "node_modules/.package-lock.json";

/** The bundle's entry file name inside its directory. */
export const ENTRY_FILE = "cli.mjs";

export interface BundleInput {
  /** Path relative to REPO_ROOT. */
  path: string;
  sha256: string;
  size: number;
  mtimeMs: number;
}

export interface BundleManifest {
  version: typeof MANIFEST_VERSION;
  /** The checkout the bundle was built for (file paths of the sources are compiled into it). */
  root: string;
  /** The directory of the bundle's files, relative to the cache directory. */
  dir: string;
  /** SHA-256 over the sorted inputs' paths and hashes: what `inputsHash` recomputes. */
  inputsHash: string;
  inputs: BundleInput[];
}

export function manifestPath(cacheDir: string): string {
  return join(cacheDir, "current.json");
}

export function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** One hash over inputs (path and content hash each), in path order. */
export function inputsHash(inputs: readonly Pick<BundleInput, "path" | "sha256">[]): string {
  const lines = [...inputs].sort((a, b) => (a.path < b.path ? -1 : 1)).map((i) => `${i.path}\0${i.sha256}`);
  return sha256(lines.join("\n"));
}

/** The recorded input of the file at `path` (relative to root) as it is now. */
export function describeInput(root: string, path: string): BundleInput {
  const full = join(root, path);
  const content = readFileSync(full);
  const stat = statSync(full);
  return { path, sha256: sha256(content), size: stat.size, mtimeMs: stat.mtimeMs };
}

export function readManifest(cacheDir: string): BundleManifest | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(manifestPath(cacheDir), "utf8"));
  } catch {
    return null; // absent or unreadable: there is no bundle to run
  }
  const m = parsed as Partial<BundleManifest> | null;
  if (
    m === null ||
    typeof m !== "object" ||
    m.version !== MANIFEST_VERSION ||
    typeof m.root !== "string" ||
    typeof m.dir !== "string" ||
    typeof m.inputsHash !== "string" ||
    !Array.isArray(m.inputs)
  )
    return null;
  return m as BundleManifest;
}

/** Writes the manifest atomically (a reader sees the old one or the new one, never half). */
export function writeManifest(cacheDir: string, manifest: BundleManifest): void {
  const tmp = `${manifestPath(cacheDir)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(manifest)}\n`);
  renameSync(tmp, manifestPath(cacheDir));
}

export type Freshness =
  | {
      fresh: true;
      manifest: BundleManifest /** inputs whose stat changed but content did not */;
      touched: number;
    }
  | { fresh: false; reason: string };

/**
 * Whether the recorded bundle may run: built for this checkout, and every input with the content
 * it was built from (see the header for the stat shortcut). `touched` inputs get their new stat
 * recorded by the caller, so the next start takes the shortcut again.
 */
export function checkFreshness(cacheDir: string, options: { root?: string; full?: boolean } = {}): Freshness {
  const { root = REPO_ROOT, full = false } = options;
  const manifest = readManifest(cacheDir);
  if (manifest === null) return { fresh: false, reason: "no bundle has been built" };
  if (manifest.root !== root) return { fresh: false, reason: `built for ${manifest.root}` };
  const byTree = !full && manifest.inputs.some((i) => i.path === INSTALLED_TREE);
  let touched = 0;
  for (const input of manifest.inputs) {
    if (byTree && input.path !== INSTALLED_TREE && input.path.startsWith("node_modules/")) continue;
    const full = join(root, input.path);
    let size: number;
    let mtimeMs: number;
    try {
      ({ size, mtimeMs } = statSync(full));
    } catch {
      return { fresh: false, reason: `${input.path} is gone` };
    }
    if (size === input.size && mtimeMs === input.mtimeMs) continue;
    if (size !== input.size || sha256(readFileSync(full)) !== input.sha256)
      return { fresh: false, reason: `${input.path} changed` };
    input.mtimeMs = mtimeMs;
    touched++;
  }
  return { fresh: true, manifest, touched };
}
