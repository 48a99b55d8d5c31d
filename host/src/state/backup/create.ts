// `airlock backup`: one archive holding a consistent snapshot of an embedded (SQLite) data dir,
// whether or not a host is serving it. The CLI process reads the data dir itself, never through
// the admin API: the vault key and the plugin folders are files on this machine, and the admin API
// never hands the vault key out.
// Order, which makes the snapshot consistent: airlock.db first (VACUUM INTO on a read-only
// connection: one read transaction, so every write acknowledged before the backup began is in it,
// and nothing half-written); then the audit journals, then audit.db, folded together (an audit
// entry is journaled before the write it records commits, so the trail covers airlock.db); then
// the other files (plugin folders, which are written before their row commits and never changed
// after, credentials.json, master.key, the bootstrap registry, whose SQLite files are snapshotted
// the same way). A plugin folder named by the snapshot but gone by the time it is copied (an
// uninstall meanwhile) fails the backup rather than produce one that cannot serve it.
// Invariants: the archive is written owner-only (it may hold the master key) under a temporary
// name and linked into place, so the target is never overwritten and never half-written; the
// staging folder beside it is removed whatever happens; runtime files (host.json, WAL and shm
// sidecars, plugin staging and locks) are not archived; symlinks are not followed.
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, posix, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { SDK_VERSION } from "@airlock/sdk/manifest";
import { create as createTar } from "tar";
import { MASTER_KEY_FILE } from "../secrets/master-key.ts";
import { AUDIT_FILE } from "../store/sqlite/audit-file.ts";
import { JOURNAL_DIR } from "../store/sqlite/audit-journal.ts";
import { SQLITE_FILE } from "../store/sqlite/open.ts";
import {
  copyAuditJournals,
  foldAuditJournals,
  installedPluginPaths,
  isSqliteHeader,
  snapshotFile,
  storeSchemaVersion,
} from "../store/sqlite/snapshot.ts";
import { backupError } from "./errors.ts";
import {
  type BackupManifest,
  DATA_PREFIX,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST_NAME,
  type ManifestFile,
  type MasterKeyNote,
} from "./manifest.ts";

export interface BackupOptions {
  dataDir: string;
  /** The archive to write (a .tar.gz); must not exist. */
  file: string;
  /** The environment the host was started with, as far as the caller knows (master key variables). */
  env: Readonly<Record<string, string | undefined>>;
  hostRunning: boolean;
}

export interface BackupResult {
  file: string;
  manifest: BackupManifest;
  bytes: number;
}

/** Files at the top of the data dir that are never archived (runtime state) or archived apart. */
const SKIP_TOP = new Set(["host.json", SQLITE_FILE, AUDIT_FILE, JOURNAL_DIR]);
const SKIP_PLUGINS = new Set([".staging", ".locks"]);

function skipped(rel: string): boolean {
  const name = posix.basename(rel);
  if (/-(wal|shm|journal)$/.test(name)) return true; // SQLite sidecars: the snapshots hold their data
  if (name.startsWith(`.${MASTER_KEY_FILE}.`)) return true; // a key being generated
  if (!rel.includes("/")) return SKIP_TOP.has(rel);
  const [top, second] = rel.split("/");
  return top === "plugins" && SKIP_PLUGINS.has(second as string); // installs in progress, lock files
}

function firstBytes(path: string): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(16);
    const n = readSync(fd, buf, 0, 16, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Copies the data dir's other files into `to`, SQLite files by snapshot; returns their paths. */
function copyTree(from: string, to: string, rel = ""): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(join(from, rel));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return out;
    throw error;
  }
  for (const name of names.sort()) {
    const path = rel === "" ? name : `${rel}/${name}`;
    if (skipped(path)) continue;
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(join(from, path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    if (stat.isDirectory()) {
      mkdirSync(join(to, path), { recursive: true, mode: 0o700 });
      out.push(...copyTree(from, to, path));
    } else if (stat.isFile()) {
      try {
        if (isSqliteHeader(firstBytes(join(from, path)))) snapshotFile(join(from, path), join(to, path));
        else copyFileSync(join(from, path), join(to, path));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw error;
      }
      out.push(path);
    } // symlinks, sockets, fifos: not part of a data dir Airlock writes; not archived
  }
  return out;
}

/** Where the master key in use is, as the caller's environment tells it. */
function masterKeyNote(staged: string, env: BackupOptions["env"]): MasterKeyNote {
  if (env.AIRLOCK_MASTER_KEY !== undefined && env.AIRLOCK_MASTER_KEY !== "")
    return { included: false, reference: "the AIRLOCK_MASTER_KEY environment variable (not in this backup)" };
  const file = env.AIRLOCK_MASTER_KEY_FILE;
  if (file !== undefined && file !== "")
    return {
      included: false,
      reference: `the file named by AIRLOCK_MASTER_KEY_FILE: ${resolve(file)} (not in this backup)`,
    };
  if (existsSync(join(staged, MASTER_KEY_FILE))) return { included: true, reference: null };
  return {
    included: false,
    reference: "unknown: the data dir holds no master.key and no AIRLOCK_MASTER_KEY* variable is set",
  };
}

async function describeFile(root: string, path: string): Promise<ManifestFile> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(join(root, path))) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { path, size, sha256: hash.digest("hex") };
}

/** Snapshots the store files and copies the rest into `staged`; returns the archived paths. */
function stageDataDir(dataDir: string, staged: string): string[] {
  snapshotFile(join(dataDir, SQLITE_FILE), join(staged, SQLITE_FILE));
  const files = [SQLITE_FILE];
  if (existsSync(join(dataDir, AUDIT_FILE))) {
    const journals = copyAuditJournals(dataDir, staged);
    snapshotFile(join(dataDir, AUDIT_FILE), join(staged, AUDIT_FILE));
    foldAuditJournals(staged, join(staged, AUDIT_FILE), journals);
    files.push(AUDIT_FILE);
  } else {
    // an older store keeps its trail (and journal marks) in airlock.db: keep the journals as they are
    mkdirSync(join(staged, JOURNAL_DIR), { mode: 0o700 });
    files.push(...copyTree(dataDir, staged, JOURNAL_DIR).filter((p) => p.startsWith(`${JOURNAL_DIR}/`)));
  }
  files.push(...copyTree(dataDir, staged));
  for (const path of installedPluginPaths(join(staged, SQLITE_FILE))) {
    if (isAbsolute(path) || existsSync(join(staged, path))) continue;
    throw backupError(
      "AIRLOCK_BACKUP_FAILED",
      `the store names the plugin folder ${path}, which was removed while the backup ran (an uninstall?) — run the backup again`,
    );
  }
  return files;
}

async function writeArchive(staging: string, paths: string[], file: string): Promise<number> {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  try {
    const tar = createTar({ gzip: true, cwd: staging, portable: true, noDirRecurse: true }, [
      MANIFEST_NAME,
      ...paths.map((p) => `${DATA_PREFIX}${p}`),
    ]);
    await pipeline(tar, createWriteStream(temp, { flags: "wx", mode: 0o600 }));
    const fd = openSync(temp, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, file); // never replaces a file that appeared meanwhile
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "EEXIST")
        throw backupError("AIRLOCK_BACKUP_TARGET_EXISTS", `${file} already exists — nothing was overwritten`);
      throw cause;
    }
    return lstatSync(file).size;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Writes the backup of `options.dataDir` to `options.file`. */
export async function createBackup(options: BackupOptions): Promise<BackupResult> {
  const dataDir = resolve(options.dataDir);
  const file = resolve(options.file);
  const store = options.env.AIRLOCK_STORE_URL;
  if (store !== undefined && store !== "")
    throw backupError(
      "AIRLOCK_BACKUP_STORE_UNSUPPORTED",
      'AIRLOCK_STORE_URL names a PostgreSQL store — back it up with pg_dump and keep its master key (docs/deploy.md "Backup and restore")',
    );
  if (!existsSync(join(dataDir, SQLITE_FILE)))
    throw backupError(
      "AIRLOCK_BACKUP_SOURCE_MISSING",
      `${dataDir} holds no SQLite store (${SQLITE_FILE}) to back up`,
    );
  if (existsSync(file))
    throw backupError(
      "AIRLOCK_BACKUP_TARGET_EXISTS",
      `${file} already exists — name a new file; nothing was overwritten`,
    );
  let staging: string;
  try {
    staging = mkdtempSync(join(dirname(file), `.${basename(file)}.staging-`));
  } catch (cause) {
    throw backupError("AIRLOCK_BACKUP_FAILED", `cannot write beside ${file}: ${(cause as Error).message}`, {
      cause,
    });
  }
  try {
    const staged = join(staging, DATA_PREFIX);
    mkdirSync(staged, { mode: 0o700 });
    const createdAt = new Date().toISOString();
    const paths = stageDataDir(dataDir, staged);
    const files: ManifestFile[] = [];
    for (const path of paths) files.push(await describeFile(staged, path));
    const manifest: BackupManifest = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      airlockVersion: SDK_VERSION,
      createdAt,
      store: { kind: "sqlite", schemaVersion: storeSchemaVersion(join(staged, SQLITE_FILE)) },
      source: { dataDir, hostRunning: options.hostRunning },
      masterKey: masterKeyNote(staged, options.env),
      files,
    };
    await writeFile(join(staging, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    const bytes = await writeArchive(staging, paths, file);
    return { file, manifest, bytes };
  } catch (cause) {
    if ((cause as { code?: string }).code?.startsWith("AIRLOCK_")) throw cause;
    throw backupError(
      "AIRLOCK_BACKUP_FAILED",
      `the backup of ${dataDir} failed: ${(cause as Error).message}`,
      { cause },
    );
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
