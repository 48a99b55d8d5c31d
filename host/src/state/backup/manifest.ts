// The manifest of an `airlock backup` archive (`manifest.json`, the archive's first entry): what
// made it, when, from which store schema, where the master key is, and every file with its size
// and sha256. `parseManifest` is the restore side's check of an untrusted manifest.
// Invariants: file paths are relative, normalised POSIX paths under the data dir (no `..`, no
// absolute path, no empty or `.` segment), each listed once; an unknown format version is refused.
import { posix } from "node:path";
import { backupError } from "./errors.ts";

export const MANIFEST_NAME = "manifest.json";
/** The archive's folder holding the data dir's files. */
export const DATA_PREFIX = "data/";
export const FORMAT = "airlock-backup";
export const FORMAT_VERSION = 1;
/** A manifest is small (a line per file); a bigger one is refused before it is parsed. */
export const MANIFEST_MAX_BYTES = 8 << 20;

export interface ManifestFile {
  /** Relative to the data dir, POSIX separators. */
  path: string;
  size: number;
  sha256: string;
}

export interface MasterKeyNote {
  /** master.key is in the archive (and no environment variable overrides it for the backup's env). */
  included: boolean;
  /** Where the key is kept when the archive does not hold the one in use; null when it does. */
  reference: string | null;
}

export interface BackupManifest {
  format: typeof FORMAT;
  formatVersion: number;
  /** The Airlock version that wrote the backup. */
  airlockVersion: string;
  createdAt: string;
  store: { kind: "sqlite"; schemaVersion: number };
  /** The data dir the backup was taken from, and whether a host was serving it then. */
  source: { dataDir: string; hostRunning: boolean };
  masterKey: MasterKeyNote;
  files: ManifestFile[];
}

/** Whether `path` is a relative, normalised POSIX path with no `..` segment. */
export function isSafeRelativePath(path: string): boolean {
  if (path === "" || path.startsWith("/") || path.includes("\\") || path.includes("\0")) return false;
  if (posix.normalize(path) !== path) return false;
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

function invalid(why: string): never {
  throw backupError("AIRLOCK_RESTORE_MANIFEST_INVALID", `the archive's ${MANIFEST_NAME} ${why}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseFile(entry: unknown, i: number): ManifestFile {
  if (!isRecord(entry)) invalid(`files[${i}] is not an object`);
  const { path, size, sha256 } = entry;
  if (typeof path !== "string" || !isSafeRelativePath(path))
    throw backupError(
      "AIRLOCK_RESTORE_UNSAFE_ENTRY",
      `the archive's manifest lists an unsafe path ${JSON.stringify(path)} (absolute, \`..\` or not normalised)`,
    );
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0)
    invalid(`files[${i}].size is not a size`);
  if (typeof sha256 !== "string" || !/^[0-9a-f]{64}$/.test(sha256))
    invalid(`files[${i}].sha256 is not a sha256`);
  return { path, size, sha256 };
}

/** The manifest in `text`, checked; throws AIRLOCK_RESTORE_* naming what is wrong. */
export function parseManifest(text: string): BackupManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw backupError("AIRLOCK_RESTORE_MANIFEST_INVALID", `the archive's ${MANIFEST_NAME} is not JSON`, {
      cause,
    });
  }
  if (!isRecord(raw) || raw.format !== FORMAT)
    invalid(`is not an Airlock backup manifest (format ≠ "${FORMAT}")`);
  if (raw.formatVersion !== FORMAT_VERSION)
    throw backupError(
      "AIRLOCK_RESTORE_VERSION_UNSUPPORTED",
      `the backup has format version ${JSON.stringify(raw.formatVersion)}; this Airlock reads version ${FORMAT_VERSION} — restore it with the Airlock that wrote it (${String(raw.airlockVersion)}) or newer`,
    );
  const store = raw.store;
  if (!isRecord(store) || store.kind !== "sqlite" || !Number.isSafeInteger(store.schemaVersion))
    invalid("has no SQLite store schema version");
  const key = raw.masterKey;
  if (
    !isRecord(key) ||
    typeof key.included !== "boolean" ||
    !(key.reference === null || typeof key.reference === "string")
  )
    invalid("has no masterKey note");
  const source = isRecord(raw.source) ? raw.source : {};
  if (!Array.isArray(raw.files)) invalid("has no file list");
  const files = raw.files.map(parseFile);
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) invalid(`lists ${f.path} twice`);
    seen.add(f.path);
  }
  return {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    airlockVersion: String(raw.airlockVersion ?? ""),
    createdAt: String(raw.createdAt ?? ""),
    store: { kind: "sqlite", schemaVersion: store.schemaVersion as number },
    source: { dataDir: String(source.dataDir ?? ""), hostRunning: source.hostRunning === true },
    masterKey: { included: key.included as boolean, reference: (key.reference as string | null) ?? null },
    files,
  };
}
