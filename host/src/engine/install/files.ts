// The plugin files on disk: `<dataDir>/plugins/<namespace>/<version>/{airlock.json,index.js,
// package.json, ui/<name>.html}` (UI files: those the manifest lists, verified by the tarball
// reader), written only through a staging directory and an atomic rename. The store
// records a version's folder relative to the data directory (`plugins/<namespace>/<version>`,
// `recordedPath`), so a data directory copied or restored elsewhere still finds its files
// (`pluginDirOf`); an absolute path recorded by an older host is read as it is.
// Invariants: files are created by us with our modes (0644 files, 0755 directories), never
// from the archive; a version directory appears complete or not at all; staging lives in
// `<dataDir>/plugins/.staging/` on the same file system so the rename is atomic; recovery
// removes staging left by dead processes and version directories the store does not know.
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { isAbsolute, join } from "node:path";
import { pidAlive } from "./lock.ts";

export interface PluginFiles {
  packageJson: Uint8Array;
  manifest: Uint8Array;
  bundle: Uint8Array;
  /** UI files by name (ui/<name>.html), as the tarball reader verified them. */
  ui?: ReadonlyMap<string, Uint8Array>;
}

export const pluginsRoot = (dataDir: string): string => join(dataDir, "plugins");
export const stagingRoot = (dataDir: string): string => join(dataDir, "plugins", ".staging");
export const versionDir = (dataDir: string, namespace: string, version: string): string =>
  join(dataDir, "plugins", namespace, version);

/** What the store records for a version's folder: relative to the data dir, `/`-separated. */
export const recordedPath = (namespace: string, version: string): string => `plugins/${namespace}/${version}`;

/** The folder a recorded path names in `dataDir` (an absolute path, from an older host, as is). */
export const pluginDirOf = (dataDir: string, path: string): string =>
  isAbsolute(path) ? path : join(dataDir, ...path.split("/"));

function writeFileDurably(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, "wx", 0o644);
  try {
    fchmodSync(fd, 0o644); // exact, whatever the process umask

    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes the three files (and the UI files) into a fresh staging directory; returns its path. */
export function stageFiles(dataDir: string, namespace: string, version: string, files: PluginFiles): string {
  mkdirSync(stagingRoot(dataDir), { recursive: true, mode: 0o755 });
  const dir = join(
    stagingRoot(dataDir),
    `${namespace}@${version}.${process.pid}.${randomBytes(6).toString("hex")}`,
  );
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  writeFileDurably(join(dir, "package.json"), files.packageJson);
  writeFileDurably(join(dir, "airlock.json"), files.manifest);
  writeFileDurably(join(dir, "index.js"), files.bundle);
  if (files.ui !== undefined && files.ui.size > 0) {
    mkdirSync(join(dir, "ui"), { mode: 0o755 });
    chmodSync(join(dir, "ui"), 0o755);
    for (const [name, bytes] of files.ui) writeFileDurably(join(dir, "ui", `${name}.html`), bytes);
  }
  return dir;
}

/** Moves a staged directory into place. A leftover directory at the target (never recorded) is replaced. */
export function commitStaged(staged: string, dataDir: string, namespace: string, version: string): string {
  const target = versionDir(dataDir, namespace, version);
  mkdirSync(join(pluginsRoot(dataDir), namespace), { recursive: true, mode: 0o755 });
  rmSync(target, { recursive: true, force: true });
  renameSync(staged, target);
  return target;
}

export function removeVersionDir(dataDir: string, namespace: string, version: string): void {
  rmSync(versionDir(dataDir, namespace, version), { recursive: true, force: true });
}

export function removeNamespaceDir(dataDir: string, namespace: string): void {
  rmSync(join(pluginsRoot(dataDir), namespace), { recursive: true, force: true });
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return [];
    throw err;
  }
}

/** Removes staging directories whose writer process is gone (or is this process, which has nothing in flight when it recovers). */
export function removeDeadStaging(dataDir: string): string[] {
  const removed: string[] = [];
  for (const name of list(stagingRoot(dataDir))) {
    const pid = Number(/\.(\d+)\.[0-9a-f]+$/.exec(name)?.[1]);
    if (pid === process.pid || !pidAlive(pid)) {
      rmSync(join(stagingRoot(dataDir), name), { recursive: true, force: true });
      removed.push(join(stagingRoot(dataDir), name));
    }
  }
  return removed;
}

/** Namespaces that have a directory under plugins/. */
export function namespaceDirs(dataDir: string): string[] {
  return list(pluginsRoot(dataDir)).filter((n) => !n.startsWith("."));
}

/** Removes version directories of a namespace that no installed-plugin record names. Call under the namespace lock. */
export function removeOrphanVersions(
  dataDir: string,
  namespace: string,
  known: ReadonlySet<string>,
): string[] {
  const removed: string[] = [];
  for (const version of list(join(pluginsRoot(dataDir), namespace))) {
    if (!known.has(version)) {
      removeVersionDir(dataDir, namespace, version);
      removed.push(versionDir(dataDir, namespace, version));
    }
  }
  if (list(join(pluginsRoot(dataDir), namespace)).length === 0) removeNamespaceDir(dataDir, namespace);
  return removed;
}
