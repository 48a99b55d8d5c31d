// `airlock backup <file>` and `airlock restore <file> --data-dir DIR`: one archive of an embedded
// (SQLite) data dir, and its verified restore into a new or empty directory (state/backup/).
// The backup reads the data dir on this machine, running host or not — never through the admin
// API, which does not hand out the vault key; SQLite's snapshot (VACUUM INTO, one read
// transaction) is consistent while the host writes. A PostgreSQL store is backed up with pg_dump
// and its master key (docs/deploy.md "Backup and restore"), so `backup` refuses one.
// Invariants: `restore` has no default directory (it never lands in ./.airlock-data unasked);
// every refusal is one `error: AIRLOCK_…` line and leaves nothing half-written.
import { resolve } from "node:path";
import { createBackup, restoreBackup } from "../../../index.ts";
import { DATA_DIR_OPTION, dataDirOption, parseOptions, requiredPositional, stringOption } from "../args.ts";
import { cliError } from "../errors.ts";
import { runningHostOf } from "../host-location.ts";
import type { CliCommand } from "../types.ts";

const JSON_OPTION = { json: { type: "boolean" } } as const;

export const backupCommand: CliCommand = {
  path: ["backup"],
  summary: "Write a consistent backup of a data dir (store, plugins, master key) to one file",
  help: `Usage: airlock backup <file> [options]

Writes one archive (.tar.gz, owner-only) of an embedded (SQLite) data dir: a consistent
snapshot of the store and the audit trail (taken with SQLite's online snapshot, safe while a
host serves the data dir and writes to it), the installed plugin folders, credentials.json,
the local registry, and master.key — or, when the key is kept outside the data dir
(AIRLOCK_MASTER_KEY or AIRLOCK_MASTER_KEY_FILE), a note of where it is. manifest.json in the
archive records the Airlock version, the time, the store's schema and every file's sha256.
The file must not exist. A PostgreSQL store is backed up with pg_dump (docs/deploy.md).

Options:
  --data-dir DIR     The data dir to back up. Default: $AIRLOCK_DATA_DIR, else the host you
                     started last while it runs, else ./.airlock-data.
  --json             Print the manifest as JSON.

Example:
  airlock backup ./airlock-backup.tar.gz --data-dir ./.airlock-data
`,
  async run(args, io) {
    const parsed = parseOptions(args, { ...DATA_DIR_OPTION, ...JSON_OPTION }, 1);
    const file = requiredPositional(
      parsed,
      0,
      "<file>: the archive to write — e.g. airlock backup ./airlock-backup.tar.gz",
    );
    const dataDir = dataDirOption(parsed, io);
    const running = runningHostOf(dataDir);
    io.stderr(
      running === null
        ? `airlock: data dir ${dataDir} (no host running on it)\n`
        : `airlock: data dir ${dataDir} (host at ${running.adminUrl} running: online snapshot)\n`,
    );
    const result = await createBackup({
      dataDir,
      file: resolve(io.cwd, file),
      env: io.env,
      hostRunning: running !== null,
    });
    const m = result.manifest;
    if (parsed.values.json === true) {
      io.stdout(`${JSON.stringify({ file: result.file, bytes: result.bytes, manifest: m })}\n`);
      return 0;
    }
    io.stdout(
      `backup:     ${result.file} (${result.bytes} bytes, ${m.files.length} files)\n` +
        `store:      SQLite, schema version ${m.store.schemaVersion}, as of ${m.createdAt}\n` +
        `master key: ${m.masterKey.included ? "included (master.key) — keep this file as secret as the key" : `NOT included — ${m.masterKey.reference}`}\n` +
        `restore:    airlock restore ${result.file} --data-dir NEW_DIR\n`,
    );
    return 0;
  },
};

export const restoreCommand: CliCommand = {
  path: ["restore"],
  summary: "Verify a backup and restore it into a new or empty data dir",
  help: `Usage: airlock restore <file> --data-dir DIR [options]

Verifies a backup written by \`airlock backup\` (its manifest, every file's size and sha256,
the store's schema against this build, SQLite's integrity check) and restores it into DIR,
which must be absent or empty. The files are written beside DIR and renamed into place once
every check passed: a refused or failed restore leaves nothing behind. Archives holding
absolute paths, \`..\`, symlinks, hard links or devices are refused. Then serve it with
\`airlock serve --data-dir DIR\`.

Options:
  --data-dir DIR     Where to restore (required; absent or empty).
  --json             Print the manifest as JSON.

Example:
  airlock restore ./airlock-backup.tar.gz --data-dir ./restored-data
`,
  async run(args, io) {
    const parsed = parseOptions(args, { ...DATA_DIR_OPTION, ...JSON_OPTION }, 1);
    const file = requiredPositional(
      parsed,
      0,
      "<file>: the backup to restore — e.g. airlock restore ./airlock-backup.tar.gz --data-dir ./restored-data",
    );
    if (stringOption(parsed, "data-dir") === undefined)
      throw cliError(
        "AIRLOCK_CLI_USAGE",
        "restore needs --data-dir DIR — the new or empty directory to restore into",
      );
    const result = await restoreBackup(resolve(io.cwd, file), dataDirOption(parsed, io, false));
    const m = result.manifest;
    if (parsed.values.json === true) {
      io.stdout(`${JSON.stringify({ dataDir: result.dataDir, manifest: m })}\n`);
      return 0;
    }
    if (!m.masterKey.included)
      io.stderr(
        `airlock: the backup holds no master key; the secrets need the key kept in ${m.masterKey.reference}\n`,
      );
    io.stdout(
      `restored:   ${m.files.length} files into ${result.dataDir} (verified: manifest, sha256, integrity)\n` +
        `from:       Airlock ${m.airlockVersion}, store schema version ${m.store.schemaVersion}, taken ${m.createdAt}\n` +
        `serve it:   airlock serve --data-dir ${result.dataDir}\n`,
    );
    return 0;
  },
};
