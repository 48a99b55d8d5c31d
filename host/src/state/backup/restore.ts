// `airlock restore`: verifies an `airlock backup` archive and restores it into a new or empty
// directory. The archive is untrusted input: it is read once, entry by entry, and each entry is
// checked before a byte of it is written — manifest.json first, then only regular files under
// `data/` that the manifest lists, each at a relative normalised path (no `..`, no absolute path),
// never a symlink, hard link or device — and each file's size and sha256 are checked against the
// manifest as it is written. The files land in a temporary directory beside the target; only when
// every check passed (every listed file present, the store's schema no newer than this build,
// SQLite's integrity_check "ok" on every database) is it renamed into place.
// Invariants: a refusal leaves the target as it was and removes the temporary directory; a
// non-empty target is refused before the archive is read; restored files are owner-only (0600,
// folders 0700), whatever modes the archive claims.
import { createHash, type Hash } from "node:crypto";
import {
  closeSync,
  createReadStream,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { Parser, type ReadEntry } from "tar";
import { SQLITE_FILE } from "../store/sqlite/open.ts";
import {
  integrityCheck,
  isSqliteHeader,
  SQLITE_SCHEMA_VERSION,
  storeSchemaVersion,
} from "../store/sqlite/snapshot.ts";
import { backupError } from "./errors.ts";
import {
  type BackupManifest,
  DATA_PREFIX,
  isSafeRelativePath,
  MANIFEST_MAX_BYTES,
  MANIFEST_NAME,
  type ManifestFile,
  parseManifest,
} from "./manifest.ts";

export interface RestoreResult {
  dataDir: string;
  manifest: BackupManifest;
}

/** AIRLOCK_RESTORE_TARGET_NOT_EMPTY unless `target` is absent or an empty directory. */
function requireEmptyTarget(target: string): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (!stat.isDirectory())
    throw backupError(
      "AIRLOCK_RESTORE_TARGET_NOT_EMPTY",
      `${target} exists and is not a directory — name a new or empty directory`,
    );
  const names = readdirSync(target);
  if (names.length > 0)
    throw backupError(
      "AIRLOCK_RESTORE_TARGET_NOT_EMPTY",
      `${target} is not empty (${names.length} entr${names.length === 1 ? "y" : "ies"}) — restore into a new or empty directory; nothing was changed`,
    );
}

/** The state of one pass over the archive. */
interface Reading {
  dir: string;
  manifest: BackupManifest | null;
  listed: Map<string, ManifestFile>;
  written: Set<string>;
  /** The first refusal; later entries are drained unread. */
  failure: Error | null;
  first: boolean;
  /** Files being written (closed at their entry's end, or after a failed read). */
  open: Set<number>;
}

function unsafe(path: string, why: string): Error {
  return backupError(
    "AIRLOCK_RESTORE_UNSAFE_ENTRY",
    `the archive entry ${JSON.stringify(path)} ${why} — nothing was restored`,
  );
}

function readManifest(entry: ReadEntry, state: Reading): void {
  if ((entry.size ?? 0) > MANIFEST_MAX_BYTES) {
    state.failure = backupError(
      "AIRLOCK_RESTORE_MANIFEST_INVALID",
      `the archive's ${MANIFEST_NAME} is over ${MANIFEST_MAX_BYTES} bytes`,
    );
    entry.resume();
    return;
  }
  const chunks: Buffer[] = [];
  entry.on("data", (c: Buffer) => chunks.push(c));
  entry.on("end", () => {
    try {
      const manifest = parseManifest(Buffer.concat(chunks).toString("utf8"));
      if (manifest.store.schemaVersion > SQLITE_SCHEMA_VERSION)
        throw backupError(
          "AIRLOCK_RESTORE_VERSION_UNSUPPORTED",
          `the backup's store is at schema version ${manifest.store.schemaVersion} (Airlock ${manifest.airlockVersion}); this build knows up to ${SQLITE_SCHEMA_VERSION} — restore it with Airlock ${manifest.airlockVersion} or newer`,
        );
      state.manifest = manifest;
      for (const f of manifest.files) state.listed.set(f.path, f);
    } catch (error) {
      state.failure ??= error as Error;
    }
  });
}

/** Writes one data file, hashing it; a size or digest other than the manifest's is a refusal. */
function writeData(entry: ReadEntry, rel: string, expected: ManifestFile, state: Reading): void {
  const target = join(state.dir, rel);
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  const fd = openSync(target, "wx", 0o600);
  state.open.add(fd);
  const hash: Hash = createHash("sha256");
  let size = 0;
  const mismatch = (why: string) =>
    backupError(
      "AIRLOCK_RESTORE_CHECKSUM_MISMATCH",
      `${rel} in the archive ${why} — the backup is damaged or altered; nothing was restored`,
    );
  entry.on("data", (chunk: Buffer) => {
    if (state.failure !== null) return;
    size += chunk.length;
    if (size > expected.size) {
      state.failure = mismatch(`is larger than the ${expected.size} bytes its manifest records`);
      return;
    }
    hash.update(chunk);
    writeSync(fd, chunk);
  });
  entry.on("end", () => {
    try {
      if (state.failure !== null) return;
      if (size !== expected.size)
        state.failure = mismatch(`has ${size} bytes, its manifest records ${expected.size}`);
      else if (hash.digest("hex") !== expected.sha256)
        state.failure = mismatch("does not have the sha256 its manifest records");
      else {
        fsyncSync(fd);
        state.written.add(rel);
      }
    } finally {
      state.open.delete(fd);
      closeSync(fd);
    }
  });
}

/** The refusal an entry earns before its body is read, or null when it may be read. */
function refusal(entry: ReadEntry, state: Reading, first: boolean): Error | null {
  const path = entry.path;
  const bare = entry.type === "Directory" ? path.replace(/\/$/, "") : path;
  if (!isSafeRelativePath(bare))
    return unsafe(path, "is an absolute path, climbs out with `..` or is not normalised");
  if (entry.type !== "File" && entry.type !== "OldFile" && entry.type !== "Directory")
    return unsafe(path, `is a ${entry.type} (a backup holds regular files only)`);
  if (first && path !== MANIFEST_NAME)
    return backupError(
      "AIRLOCK_RESTORE_MANIFEST_INVALID",
      `the archive does not begin with ${MANIFEST_NAME} (it begins with ${JSON.stringify(path)}) — is it an airlock backup?`,
    );
  if (first || entry.type === "Directory" || state.manifest === null) return null;
  const rel = path.startsWith(DATA_PREFIX) ? path.slice(DATA_PREFIX.length) : "";
  if (!state.listed.has(rel))
    return backupError(
      "AIRLOCK_RESTORE_MANIFEST_INVALID",
      `the archive holds ${path}, which its manifest does not list`,
    );
  if (state.written.has(rel))
    return backupError("AIRLOCK_RESTORE_MANIFEST_INVALID", `the archive holds ${path} twice`);
  return null;
}

function onEntry(entry: ReadEntry, state: Reading): void {
  const first = state.first;
  state.first = false;
  if (state.failure === null) state.failure = refusal(entry, state, first);
  if (state.failure !== null || entry.type === "Directory") {
    // folders are made as their files are written; after a refusal the rest is drained unread
    entry.resume();
  } else if (first) {
    readManifest(entry, state);
  } else if (state.manifest === null) {
    entry.resume(); // the manifest's own checks failed; state.failure says why
  } else {
    const rel = entry.path.slice(DATA_PREFIX.length);
    writeData(entry, rel, state.listed.get(rel) as ManifestFile, state);
  }
}

/** Reads the archive into `dir`, checking every entry; throws the first refusal. */
async function extractVerified(file: string, dir: string): Promise<BackupManifest> {
  const state: Reading = {
    dir,
    manifest: null,
    listed: new Map(),
    written: new Set(),
    failure: null,
    first: true,
    open: new Set(),
  };
  const parser = new Parser({ strict: true });
  parser.on("entry", (entry: ReadEntry) => onEntry(entry, state));
  try {
    await pipeline(createReadStream(file), parser);
  } catch (cause) {
    for (const fd of state.open) closeSync(fd); // entries cut off by the failed read
    if (state.failure !== null) throw state.failure;
    const code = (cause as NodeJS.ErrnoException).code;
    const what =
      code === "ENOENT"
        ? "does not exist"
        : code === "EISDIR"
          ? "is a directory"
          : `cannot be read as a backup (${(cause as Error).message})`;
    throw backupError("AIRLOCK_RESTORE_ARCHIVE_UNREADABLE", `${file} ${what} — nothing was restored`, {
      cause,
    });
  }
  if (state.failure !== null) throw state.failure;
  if (state.manifest === null)
    throw backupError(
      "AIRLOCK_RESTORE_ARCHIVE_UNREADABLE",
      `${file} holds no entries (empty or not an airlock backup) — nothing was restored`,
    );
  const missing = [...state.listed.keys()].filter((p) => !state.written.has(p));
  if (missing.length > 0)
    throw backupError(
      "AIRLOCK_RESTORE_MANIFEST_INVALID",
      `the manifest lists ${missing.length} file(s) the archive lacks (first: ${missing[0]}) — the archive is truncated or altered`,
    );
  if (!state.written.has(SQLITE_FILE))
    throw backupError("AIRLOCK_RESTORE_MANIFEST_INVALID", `the archive holds no ${SQLITE_FILE} (the store)`);
  return state.manifest;
}

/** The restored databases pass SQLite's integrity check and the store is the manifest's schema. */
function checkDatabases(dir: string, manifest: BackupManifest): void {
  for (const f of manifest.files) {
    const path = join(dir, f.path);
    const head = Buffer.alloc(16);
    const fd = openSync(path, "r");
    try {
      readSync(fd, head, 0, 16, 0);
    } finally {
      closeSync(fd);
    }
    if (!isSqliteHeader(head)) continue;
    const result = integrityCheck(path);
    if (result !== "ok")
      throw backupError(
        "AIRLOCK_RESTORE_FAILED",
        `the archived database ${f.path} fails SQLite's integrity check: ${result}`,
      );
  }
  const version = storeSchemaVersion(join(dir, SQLITE_FILE));
  if (version !== manifest.store.schemaVersion)
    throw backupError(
      "AIRLOCK_RESTORE_MANIFEST_INVALID",
      `the manifest records schema version ${manifest.store.schemaVersion}, the archived store is at ${version}`,
    );
}

function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Restores the backup `file` into `dataDir`, which must be absent or empty. */
export async function restoreBackup(file: string, dataDir: string): Promise<RestoreResult> {
  const target = resolve(dataDir);
  const archive = resolve(file);
  requireEmptyTarget(target);
  const parent = dirname(target);
  let temp: string;
  try {
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    temp = mkdtempSync(join(parent, `.${basename(target)}.restore-`));
  } catch (cause) {
    throw backupError(
      "AIRLOCK_RESTORE_FAILED",
      `cannot write beside ${target}: ${(cause as Error).message}`,
      { cause },
    );
  }
  try {
    const manifest = await extractVerified(archive, temp);
    checkDatabases(temp, manifest);
    syncDir(temp);
    requireEmptyTarget(target);
    try {
      renameSync(temp, target); // replaces an empty directory; refuses one that filled meanwhile
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST")
        throw backupError(
          "AIRLOCK_RESTORE_TARGET_NOT_EMPTY",
          `${target} filled while the backup was being restored; nothing was changed`,
        );
      throw cause;
    }
    syncDir(parent);
    return { dataDir: target, manifest };
  } catch (cause) {
    rmSync(temp, { recursive: true, force: true });
    if ((cause as { code?: string }).code?.startsWith("AIRLOCK_")) throw cause;
    throw backupError(
      "AIRLOCK_RESTORE_FAILED",
      `restoring into ${target} failed: ${(cause as Error).message}`,
      { cause },
    );
  }
}
