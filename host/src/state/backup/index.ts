// Backup and restore of an embedded (SQLite) data dir: `createBackup` (create.ts) writes one
// archive with a manifest; `restoreBackup` (restore.ts) verifies one and restores it atomically.
export { type BackupOptions, type BackupResult, createBackup } from "./create.ts";
export { BACKUP_ERRORS } from "./errors.ts";
export type { BackupManifest } from "./manifest.ts";
export { type RestoreResult, restoreBackup } from "./restore.ts";
