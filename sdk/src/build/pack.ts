// `packPlugin(pluginDir)`: the whole `airlock-plugin pack`. Reads the built dist/, checks that
// it is complete and consistent (manifest valid, bundle integrity and size match index.js), and
// writes `<pluginDir>/<namespace>-<version>.tgz`: an npm-style gzip tarball whose entries are
// exactly package/package.json, package/airlock.json, package/index.js, in that order, then the
// UI files the manifest lists (package/ui/<name>.html, in the manifest's order), each checked
// against its sha512 first.
// Deterministic: fixed mtime (npm's 1985-10-26T08:15:00Z), mode 0644, owner 0, no user names,
// so the same dist/ always gives the same bytes and the same sha512 integrity.
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { create } from "tar";
import { UI_DIR } from "../apps-format.ts";
import { sdkError } from "../error-codes.ts";
import { BUNDLE_FILE, MANIFEST_FILE, type PluginManifest, parseManifest } from "../manifest.ts";
import { integrityOf } from "../signing.ts";
import { DIST_DIR } from "./build-plugin.ts";

export const PACKED_FILES = ["package.json", MANIFEST_FILE, BUNDLE_FILE] as const;
/** npm's fixed timestamp for reproducible packs. */
export const PACK_MTIME = new Date("1985-10-26T08:15:00.000Z");

export interface PackResult {
  /** Absolute path of the written tarball. */
  file: string;
  /** `sha512-<base64>` of the tarball bytes. */
  integrity: string;
  size: number;
  manifest: PluginManifest;
}

/** Reads and checks dist/; throws AIRLOCK_SDK_NOT_BUILT when it is missing or stale. */
export async function readDist(
  pluginDir: string,
): Promise<{ manifest: PluginManifest; files: Map<string, Buffer> }> {
  const dist = join(resolve(pluginDir), DIST_DIR);
  const files = new Map<string, Buffer>();
  for (const name of PACKED_FILES) {
    const file = join(dist, name);
    if (!existsSync(file))
      throw sdkError("AIRLOCK_SDK_NOT_BUILT", `${file} is missing: run \`airlock-plugin build\` first`);
    files.set(name, await readFile(file));
  }
  const manifest = parseManifest(JSON.parse(files.get(MANIFEST_FILE)?.toString("utf8") ?? "null"));
  for (const ui of manifest.ui ?? []) {
    const file = join(dist, ui.file);
    const bytes = existsSync(file) ? await readFile(file) : undefined;
    if (bytes === undefined || integrityOf(bytes) !== ui.integrity || bytes.byteLength !== ui.size)
      throw sdkError(
        "AIRLOCK_SDK_NOT_BUILT",
        `${file} is missing or does not match airlock.json: run \`airlock-plugin build\` again`,
      );
    files.set(ui.file, bytes);
  }
  const bundle = files.get(BUNDLE_FILE) ?? Buffer.alloc(0);
  if (integrityOf(bundle) !== manifest.bundle.integrity || bundle.byteLength !== manifest.bundle.size) {
    throw sdkError(
      "AIRLOCK_SDK_NOT_BUILT",
      `${join(dist, BUNDLE_FILE)} does not match airlock.json: run \`airlock-plugin build\` again`,
    );
  }
  return { manifest, files };
}

/** The tarball bytes of a dist/ (deterministic, see the header). */
export async function tarballOf(files: ReadonlyMap<string, Buffer>): Promise<Buffer> {
  const stage = await mkdtemp(join(tmpdir(), "airlock-pack-"));
  try {
    const uiFiles = [...files.keys()].filter((name) => name.startsWith(`${UI_DIR}/`));
    if (uiFiles.length > 0) await mkdir(join(stage, UI_DIR), { mode: 0o755 });
    for (const name of [...PACKED_FILES, ...uiFiles]) {
      const file = join(stage, name);
      await writeFile(file, files.get(name) ?? Buffer.alloc(0));
      await chmod(file, 0o644);
    }
    const chunks: Buffer[] = [];
    const stream = create(
      { cwd: stage, gzip: true, portable: true, mtime: PACK_MTIME, prefix: "package/", noDirRecurse: true },
      [...PACKED_FILES, ...uiFiles],
    );
    for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

export function tarballName(manifest: Pick<PluginManifest, "namespace" | "version">): string {
  return `${manifest.namespace}-${manifest.version}.tgz`;
}

export async function packPlugin(pluginDir: string, outDir: string = pluginDir): Promise<PackResult> {
  const { manifest, files } = await readDist(pluginDir);
  const bytes = await tarballOf(files);
  const file = join(resolve(outDir), tarballName(manifest));
  await writeFile(file, bytes);
  return { file, integrity: integrityOf(bytes), size: bytes.byteLength, manifest };
}
