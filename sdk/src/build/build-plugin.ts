// `buildPlugin(pluginDir)`: the whole `airlock-plugin build`. Bundles the sandbox script,
// loads the plugin to describe it, composes `airlock.json`, validates it with parseManifest
// and the strict-mode lint (any violation fails: nothing is written), then writes
// `<pluginDir>/dist/{index.js, airlock.json, package.json, ui/<name>.html}`, each file replaced
// whole (a UI file no longer declared is removed). UIs: build/ui.ts.
// Entry: package.json `airlock.entry`, else `src/index.ts`; it must default-export definePlugin(...).

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import semver from "semver";
import { UI_DIR } from "../apps-format.ts";
import { sdkError } from "../error-codes.ts";
import { lintError, lintManifestTools } from "../lint/index.ts";
import {
  BUNDLE_FILE,
  MANIFEST_FILE,
  MANIFEST_VERSION,
  type PluginManifest,
  parseManifest,
  SDK_VERSION,
} from "../manifest.ts";
import { packageJsonUnicode } from "../package/read-plugin-tarball.ts";
import { integrityOf } from "../signing.ts";
import { verifyManifestSkills } from "../skills.ts";
import { usesBeyondPlugin, usesProblemsText } from "../tool-uses.ts";
import { bundleForSandbox, loadDescription } from "./bundle.ts";
import { readSkills } from "./skills.ts";
import { type BuiltUi, buildUis } from "./ui.ts";

export const DIST_DIR = "dist";

export interface BuildOptions {
  /** Minify the sandbox bundle (default false: readable stack traces). */
  minify?: boolean;
}

export interface BuildResult {
  manifest: PluginManifest;
  /** Absolute path of the dist/ folder written. */
  outDir: string;
  bundleSize: number;
}

export interface SourcePackage {
  name?: string;
  version?: string;
  description?: string;
  license?: string;
  airlock?: { entry?: string };
}

export async function readSourcePackage(pluginDir: string): Promise<SourcePackage> {
  const file = join(pluginDir, "package.json");
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(await readFile(file, "utf8")) as SourcePackage;
  } catch (err) {
    throw sdkError("AIRLOCK_SDK_BUILD_ENTRY", `${file} is not valid JSON`, { cause: err });
  }
}

/** The absolute path of the plugin's entry file; throws AIRLOCK_SDK_BUILD_ENTRY when it is missing. */
export function resolveEntry(pluginDir: string, pkg: SourcePackage): string {
  const declared = pkg.airlock?.entry;
  const entry = resolve(pluginDir, typeof declared === "string" ? declared : "src/index.ts");
  if (!existsSync(entry)) {
    const source =
      typeof declared === "string" ? 'package.json "airlock.entry"' : "the default entry src/index.ts";
    throw sdkError("AIRLOCK_SDK_BUILD_ENTRY", `${entry} not found (${source})`);
  }
  return entry;
}

/** The `package.json` shipped in the tarball: what npm-style tooling needs, nothing of the source's scripts. */
export function distPackageJson(manifest: PluginManifest, pkg: SourcePackage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: pkg.name ?? manifest.namespace,
    version: manifest.version,
    description: manifest.description,
    main: BUNDLE_FILE,
    airlock: { manifest: MANIFEST_FILE, namespace: manifest.namespace },
  };
  if (pkg.license !== undefined) out.license = pkg.license;
  return out;
}

export interface ComposedPlugin {
  /** The manifest, validated by parseManifest but not yet linted. */
  manifest: PluginManifest;
  bundle: Uint8Array;
  pkg: SourcePackage;
  /** The built UI files (manifest.ui lists them). */
  uis: BuiltUi[];
}

/** Bundles and describes the plugin into a manifest object that is NOT yet validated; writes nothing. */
export async function composeRawManifest(
  pluginDir: string,
  options: BuildOptions = {},
): Promise<{ raw: Record<string, unknown>; bundle: Uint8Array; pkg: SourcePackage; uis: BuiltUi[] }> {
  const dir = resolve(pluginDir);
  const pkg = await readSourcePackage(dir);
  const entry = resolveEntry(dir, pkg);
  // Bundle before running any plugin code (a forbidden import fails first); only now do we
  // know `runtimeZod`, so a plugin that set it is bundled again with real Zod.
  const minify = options.minify === true;
  let bundle = await bundleForSandbox(dir, entry, minify, false);
  const described = await loadDescription(dir, entry);
  if (described.runtimeZod) bundle = await bundleForSandbox(dir, entry, minify, true);
  if (semver.validRange(described.engine) === null) {
    throw sdkError(
      "AIRLOCK_SDK_PLUGIN_INVALID",
      `definePlugin: engine "${described.engine}" is not a semver range`,
    );
  }
  const raw = {
    manifestVersion: MANIFEST_VERSION,
    namespace: described.namespace,
    version: described.version,
    description: described.description,
    engine: described.engine,
    sdk: SDK_VERSION,
    bundle: { file: BUNDLE_FILE, integrity: integrityOf(bundle), size: bundle.byteLength },
    tools: described.tools,
    knowledge: described.knowledge,
    egress: described.egress,
    limits: described.limits,
    ...(described.oauth.length === 0 ? {} : { oauth: described.oauth }),
    ...(described.models === null ? {} : { models: described.models }),
  };
  const uis = await buildUis(dir, described.ui, described);
  if (uis.length > 0) Object.assign(raw, { ui: uis.map((u) => u.manifest) });
  const skills = await readSkills(dir);
  return { raw: skills.length === 0 ? raw : { ...raw, skills }, bundle, pkg, uis };
}

/**
 * composeRawManifest, then parseManifest (AIRLOCK_MANIFEST_INVALID naming each path) and the
 * per-tool grants against the plugin's (AIRLOCK_SDK_BUILD_USES_EXCEEDED); writes nothing.
 */
export async function composePlugin(pluginDir: string, options: BuildOptions = {}): Promise<ComposedPlugin> {
  const { raw, bundle, pkg, uis } = await composeRawManifest(pluginDir, options);
  const manifest = parseManifest(raw);
  verifyManifestSkills(manifest);
  const beyond = usesBeyondPlugin(manifest);
  if (beyond.length > 0) {
    throw sdkError("AIRLOCK_SDK_BUILD_USES_EXCEEDED", usesProblemsText(beyond), {
      details: { problems: beyond },
    });
  }
  return { manifest, bundle, pkg, uis };
}

/**
 * Replaces `file` whole (temp file + rename), so a concurrent reader or a second build of the
 * same sources never sees a half-written file; builds of the same sources write equal bytes.
 */
async function writeWhole(file: string, data: string | Uint8Array): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temp, data);
  await rename(temp, file);
}

/** Writes dist/ui/<name>.html for each built UI and removes any other file there (a UI no longer declared). */
async function writeUis(outDir: string, uis: readonly BuiltUi[]): Promise<void> {
  const dir = join(outDir, UI_DIR);
  const keep = new Set(uis.map((u) => `${u.manifest.name}.html`));
  if (existsSync(dir)) {
    for (const name of await readdir(dir)) if (!keep.has(name)) await rm(join(dir, name), { force: true });
  }
  if (uis.length === 0) return;
  await mkdir(dir, { recursive: true });
  for (const ui of uis) await writeWhole(join(outDir, ui.manifest.file), ui.bytes);
}

export async function buildPlugin(pluginDir: string, options: BuildOptions = {}): Promise<BuildResult> {
  const { manifest, bundle, pkg, uis } = await composePlugin(pluginDir, options);
  const violations = lintManifestTools(manifest);
  if (violations.length > 0) throw lintError(violations);
  const packageJson = distPackageJson(manifest, pkg);
  packageJsonUnicode(packageJson); // as the installer will: refused here, not after publishing
  const outDir = join(resolve(pluginDir), DIST_DIR);
  await mkdir(outDir, { recursive: true });
  await writeWhole(join(outDir, BUNDLE_FILE), bundle);
  await writeWhole(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeWhole(join(outDir, "package.json"), `${JSON.stringify(packageJson, null, 2)}\n`);
  await writeUis(outDir, uis);
  return { manifest, outDir, bundleSize: bundle.byteLength };
}
