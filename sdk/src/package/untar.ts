// The low half of reading a plugin tarball: gunzip with a cap, then tar-parse in memory, keeping
// only the expected files' bytes (the three package files and UI files package/ui/<name>.html). Throws an AirlockError with a distinct AIRLOCK_PACKAGE_*
// code per attack (see errors.ts). Invariants: nothing touches the file system; the inflated
// size is capped while inflating (a bomb stops at the cap, it is never fully inflated); any
// tar-library warning is an error (strict parser); the archive's owners, modes and mtimes are
// never read into the result, so a caller writing files uses its own.
import { gunzipSync } from "node:zlib";
import { Parser, type ReadEntry } from "tar";
import { AirlockError } from "../errors.ts";
import { PACKAGE_ERRORS, type PackageErrorCode } from "./errors.ts";

export interface TarballLimits {
  /** Bytes of the .tgz as received. */
  maxCompressedBytes: number;
  /** Bytes of the tar stream after gunzip (the decompression-bomb cap). */
  maxInflatedBytes: number;
  /** Bytes of any single file. */
  maxEntryBytes: number;
  /** Entries of any kind (pax headers and the package/ directory included). */
  maxEntries: number;
}

export const DEFAULT_TARBALL_LIMITS: Readonly<TarballLimits> = {
  maxCompressedBytes: 8 * 1024 * 1024,
  maxInflatedBytes: 32 * 1024 * 1024,
  maxEntryBytes: 16 * 1024 * 1024,
  maxEntries: 16,
};

export const PACKAGE_FILES = ["package/package.json", "package/airlock.json", "package/index.js"] as const;
export type PackageFile = (typeof PACKAGE_FILES)[number];
/** A UI file (MCP Apps, apps-format.ts): `package/ui/<name>.html`; which ones belong is the manifest's to say. */
export const UI_ENTRY = /^package\/ui\/([a-z][a-z0-9-]{0,31})\.html$/;
/** A file the reader keeps: one of the three package files, or a UI file. */
export type KeptFile = PackageFile | `package/ui/${string}.html`;

export interface TarballEntry {
  path: string;
  type: "file" | "directory";
  size: number;
}

export function packageError(
  code: PackageErrorCode,
  message: string,
  details?: Record<string, unknown>,
): AirlockError {
  const status = PACKAGE_ERRORS[code].status;
  return new AirlockError(code, message, details === undefined ? { status } : { status, details });
}

export function inflate(bytes: Uint8Array, limits: TarballLimits): Buffer {
  if (bytes.length > limits.maxCompressedBytes) {
    throw packageError(
      "AIRLOCK_PACKAGE_TOO_LARGE",
      `tarball is ${bytes.length} bytes; the cap is ${limits.maxCompressedBytes}`,
      {
        limit: limits.maxCompressedBytes,
      },
    );
  }
  if (bytes.length < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    throw packageError("AIRLOCK_PACKAGE_NOT_GZIP", "a plugin tarball must be a gzip-compressed tar (.tgz)");
  }
  try {
    return gunzipSync(bytes, { maxOutputLength: limits.maxInflatedBytes });
  } catch (err) {
    if ((err as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") {
      throw packageError(
        "AIRLOCK_PACKAGE_INFLATED_TOO_LARGE",
        `tarball inflates past ${limits.maxInflatedBytes} bytes; refusing it`,
        { limit: limits.maxInflatedBytes },
      );
    }
    throw new AirlockError("AIRLOCK_PACKAGE_NOT_GZIP", "the gzip stream is corrupt", {
      status: PACKAGE_ERRORS.AIRLOCK_PACKAGE_NOT_GZIP.status,
      cause: err,
    });
  }
}

/** Checks one entry header; returns the file it is, "directory" for package/ or package/ui/, or throws. */
function classify(entry: ReadEntry, limits: TarballLimits): KeptFile | "directory" {
  const path = entry.path;
  if (/^([/\\]|[A-Za-z]:)/.test(path)) {
    throw packageError("AIRLOCK_PACKAGE_ABSOLUTE_PATH", `entry "${path}" has an absolute path`, { path });
  }
  if (path.split(/[/\\]/).includes("..") || (entry.linkpath ?? "").split(/[/\\]/).includes("..")) {
    throw packageError("AIRLOCK_PACKAGE_PATH_TRAVERSAL", `entry "${path}" escapes the package with ".."`, {
      path,
    });
  }
  switch (entry.type) {
    case "SymbolicLink":
      throw packageError("AIRLOCK_PACKAGE_SYMLINK", `entry "${path}" is a symbolic link`, { path });
    case "Link":
      throw packageError("AIRLOCK_PACKAGE_HARDLINK", `entry "${path}" is a hard link`, { path });
    case "Directory":
      if (["package/", "package", "package/ui/", "package/ui"].includes(path)) return "directory";
      throw packageError("AIRLOCK_PACKAGE_UNEXPECTED_FILE", `unexpected directory "${path}"`, { path });
    case "File":
    case "OldFile":
      break;
    default:
      throw packageError(
        "AIRLOCK_PACKAGE_SPECIAL_FILE",
        `entry "${path}" is a ${entry.type}, not a regular file`,
        {
          path,
          type: entry.type,
        },
      );
  }
  if (!(PACKAGE_FILES as readonly string[]).includes(path) && !UI_ENTRY.test(path)) {
    throw packageError(
      "AIRLOCK_PACKAGE_UNEXPECTED_FILE",
      `unexpected file "${path}"; a plugin tarball holds only ${PACKAGE_FILES.join(", ")} and UI files package/ui/<name>.html`,
      { path },
    );
  }
  if (entry.size > limits.maxEntryBytes) {
    throw packageError(
      "AIRLOCK_PACKAGE_ENTRY_TOO_LARGE",
      `"${path}" is ${entry.size} bytes; the cap is ${limits.maxEntryBytes}`,
      {
        path,
        limit: limits.maxEntryBytes,
      },
    );
  }
  return path as KeptFile;
}

/** Parses the tar stream with tar's strict Parser, collecting the kept files' bytes. */
export function untar(
  tar: Buffer,
  limits: TarballLimits,
): Promise<{ files: Map<KeptFile, Uint8Array>; entries: TarballEntry[] }> {
  if (
    (tar[0] === 0x1f && tar[1] === 0x8b) ||
    (tar[0] === 0x28 && tar[1] === 0xb5 && tar[2] === 0x2f && tar[3] === 0xfd)
  ) {
    return Promise.reject(
      packageError("AIRLOCK_PACKAGE_TAR_INVALID", "nested compression inside the tarball is refused"),
    );
  }
  return new Promise((resolve, reject) => {
    const files = new Map<KeptFile, Uint8Array>();
    const entries: TarballEntry[] = [];
    const seen = new Set<string>();
    let failure: AirlockError | undefined;
    const fail = (err: AirlockError): void => {
      failure ??= err;
    };
    const parser = new Parser({ strict: true, maxMetaEntrySize: 64 * 1024 });
    let total = 0;
    parser.on("entry", (entry: ReadEntry) => {
      total += 1;
      if (failure !== undefined) return void entry.resume();
      try {
        if (total > limits.maxEntries) {
          throw packageError("AIRLOCK_PACKAGE_TOO_MANY_ENTRIES", `more than ${limits.maxEntries} entries`, {
            limit: limits.maxEntries,
          });
        }
        const kind = classify(entry, limits);
        const key = kind === "directory" ? entry.path.replace(/\/?$/, "/") : kind;
        if (seen.has(key)) {
          throw packageError("AIRLOCK_PACKAGE_DUPLICATE_ENTRY", `"${entry.path}" appears twice`, {
            path: entry.path,
          });
        }
        seen.add(key);
        entries.push({
          path: entry.path,
          type: kind === "directory" ? "directory" : "file",
          size: entry.size,
        });
        if (kind === "directory") return void entry.resume();
        const chunks: Buffer[] = [];
        entry.on("data", (c: Buffer) => chunks.push(c));
        entry.on("end", () => files.set(kind, new Uint8Array(Buffer.concat(chunks))));
      } catch (err) {
        fail(err as AirlockError);
        entry.resume();
      }
    });
    parser.on("meta", () => {
      total += 1;
      if (total > limits.maxEntries) {
        fail(
          packageError("AIRLOCK_PACKAGE_TOO_MANY_ENTRIES", `more than ${limits.maxEntries} entries`, {
            limit: limits.maxEntries,
          }),
        );
      }
    });
    parser.on("ignoredEntry", (entry: ReadEntry) => {
      total += 1;
      fail(
        entry.meta
          ? packageError("AIRLOCK_PACKAGE_TAR_INVALID", "an extended header is larger than allowed")
          : packageError("AIRLOCK_PACKAGE_SPECIAL_FILE", `entry "${entry.path}" has an unsupported type`, {
              path: entry.path,
              type: String(entry.header.type ?? entry.type),
            }),
      );
    });
    parser.on("error", (err: Error) => {
      fail(
        new AirlockError("AIRLOCK_PACKAGE_TAR_INVALID", `malformed tar: ${err.message}`, {
          status: PACKAGE_ERRORS.AIRLOCK_PACKAGE_TAR_INVALID.status,
          cause: err,
        }),
      );
      if (failure !== undefined) reject(failure);
    });
    parser.on("end", () => (failure === undefined ? resolve({ files, entries }) : reject(failure)));
    parser.end(tar);
  });
}
