// Where the master key comes from, in order: AIRLOCK_MASTER_KEY (base64 of 32 bytes),
// AIRLOCK_MASTER_KEY_FILE (a file holding that base64), else `<dataDir>/master.key`, generated
// on first start with mode 0600.
// Invariants: a key file with any group/other permission bit is refused; the generated file is
// written to a temporary name and hard-linked into place, so a concurrent starter either wins
// or reads the complete winner's key, never a partial file; the key is never logged.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { hasCode } from "@airlock/sdk";
import { secretsError } from "./errors.ts";

export const MASTER_KEY_FILE = "master.key";
export const KEY_BYTES = 32;

export interface MasterKeySource {
  key: Buffer;
  /** "env", or the path of the file it was read from or generated into. */
  origin: string;
}

export function decodeKey(text: string, where: string): Buffer {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, "base64");
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) || key.length !== KEY_BYTES) {
    throw secretsError(
      "AIRLOCK_SECRETS_KEY_INVALID",
      `the master key in ${where} must be base64 of exactly ${KEY_BYTES} bytes`,
    );
  }
  return key;
}

/** Reads a key file after checking that only its owner may read or write it. */
export function readKeyFile(path: string): Buffer {
  let mode: number;
  let text: string;
  try {
    mode = statSync(path).mode;
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw secretsError("AIRLOCK_SECRETS_KEY_FILE_UNREADABLE", `cannot read the master key file ${path}`, {
      cause: err,
    });
  }
  if (process.platform !== "win32" && (mode & 0o077) !== 0) {
    throw secretsError(
      "AIRLOCK_SECRETS_KEY_FILE_PERMISSIONS",
      `the master key file ${path} has mode ${(mode & 0o777).toString(8)}; it must not be accessible to group or others (chmod 600)`,
    );
  }
  return decodeKey(text, path);
}

/** Creates `<dataDir>/master.key` unless it exists; returns the key stored there either way. */
function generateKeyFile(dataDir: string): Buffer {
  const path = join(dataDir, MASTER_KEY_FILE);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tmp = join(dataDir, `.${MASTER_KEY_FILE}.${process.pid}.${randomBytes(6).toString("hex")}`);
  try {
    const fd = openSync(tmp, "wx", 0o600);
    try {
      writeSync(fd, `${randomBytes(KEY_BYTES).toString("base64")}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, path);
    } catch (err) {
      if (!hasCode(err, "EEXIST")) throw err;
    } finally {
      unlinkSync(tmp);
    }
  } catch (err) {
    throw secretsError("AIRLOCK_SECRETS_KEY_FILE_UNREADABLE", `cannot create the master key file ${path}`, {
      cause: err,
    });
  }
  return readKeyFile(path);
}

export function loadMasterKey(options: {
  dataDir?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}): MasterKeySource {
  const fromEnv = options.env.AIRLOCK_MASTER_KEY;
  if (fromEnv !== undefined && fromEnv !== "") {
    return { key: decodeKey(fromEnv, "AIRLOCK_MASTER_KEY"), origin: "env" };
  }
  const file = options.env.AIRLOCK_MASTER_KEY_FILE;
  if (file !== undefined && file !== "") return { key: readKeyFile(file), origin: file };
  if (options.dataDir === undefined) {
    throw secretsError(
      "AIRLOCK_SECRETS_NO_KEY",
      "no master key: set AIRLOCK_MASTER_KEY or AIRLOCK_MASTER_KEY_FILE (or run with a data dir)",
    );
  }
  const path = join(options.dataDir, MASTER_KEY_FILE);
  let exists = true;
  try {
    statSync(path);
  } catch (err) {
    if (!hasCode(err, "ENOENT")) {
      throw secretsError("AIRLOCK_SECRETS_KEY_FILE_UNREADABLE", `cannot stat ${path}`, { cause: err });
    }
    exists = false;
  }
  return { key: exists ? readKeyFile(path) : generateKeyFile(options.dataDir), origin: path };
}
