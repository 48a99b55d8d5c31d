// Error catalogue of `airlock backup` and `airlock restore` (AIRLOCK_BACKUP_*, AIRLOCK_RESTORE_*).
// Invariants: each code names one failure, with its HTTP-style status and a one-line description;
// a refused restore leaves nothing behind (no target directory, no temporary one).
import { AirlockError, defineErrorCodes } from "@airlock/sdk/errors";

export const BACKUP_ERRORS = defineErrorCodes({
  AIRLOCK_BACKUP_SOURCE_MISSING: {
    status: 404,
    description: "The data directory to back up holds no SQLite store (airlock.db); check --data-dir.",
  },
  AIRLOCK_BACKUP_STORE_UNSUPPORTED: {
    status: 400,
    description:
      "`airlock backup` snapshots the embedded SQLite store; a PostgreSQL store is backed up with pg_dump and its master key (docs/deploy.md).",
  },
  AIRLOCK_BACKUP_TARGET_EXISTS: {
    status: 409,
    description:
      "The backup file already exists; nothing was overwritten. Name a new file or remove the old one.",
  },
  AIRLOCK_BACKUP_FAILED: {
    status: 500,
    description:
      "The snapshot or the archive could not be written (a file unreadable, the disk full, the data dir changed under it); no backup file was left. The cause says which.",
  },
  AIRLOCK_RESTORE_TARGET_NOT_EMPTY: {
    status: 409,
    description:
      "`airlock restore` restores into a new or empty directory only; the one given holds files. Nothing was changed.",
  },
  AIRLOCK_RESTORE_ARCHIVE_UNREADABLE: {
    status: 400,
    description:
      "The backup file is missing, not a (gzipped) tar archive, or truncated; nothing was restored.",
  },
  AIRLOCK_RESTORE_MANIFEST_INVALID: {
    status: 422,
    description:
      "The archive's manifest.json is missing, not first, malformed, or does not list exactly the files the archive holds; nothing was restored.",
  },
  AIRLOCK_RESTORE_CHECKSUM_MISMATCH: {
    status: 422,
    description:
      "A file in the archive does not have the size or sha256 its manifest records (damaged or altered); nothing was restored.",
  },
  AIRLOCK_RESTORE_UNSAFE_ENTRY: {
    status: 422,
    description:
      "The archive holds an entry a backup never holds: an absolute path, a `..` segment, a symlink, a hard link or a device; nothing was restored.",
  },
  AIRLOCK_RESTORE_VERSION_UNSUPPORTED: {
    status: 422,
    description:
      "The archive's format or store schema is newer than this build (or unknown); upgrade Airlock to restore it. Nothing was restored.",
  },
  AIRLOCK_RESTORE_FAILED: {
    status: 500,
    description:
      "Writing the restored files failed (disk full, permissions) or the restored store failed its integrity check; the temporary directory was removed and the target left as it was.",
  },
});

export type BackupErrorCode = keyof typeof BACKUP_ERRORS;

export function backupError(
  code: BackupErrorCode,
  message: string,
  options: { cause?: unknown } = {},
): AirlockError {
  return new AirlockError(code, message, { ...options, status: BACKUP_ERRORS[code].status });
}
