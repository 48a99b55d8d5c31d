// The registry's own storage: a node:sqlite index (packages, versions, publish tokens) and
// tarballs on disk, content-addressed by their sha512 (hex), under one data directory.
// Invariants: a tarball file is written (temp file + rename) before the row that names it, so
// a row never points at a missing file; publishing a version is one transaction that checks
// ownership and inserts, so two publishes of the same version cannot both succeed; a version
// row is never updated or deleted (versions are immutable); only token hashes are stored.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { PluginManifest } from "@airlock/sdk/manifest";
import type { IntegritySignature } from "@airlock/sdk/signing";
import { registryError } from "./errors.ts";

export interface VersionRow {
  name: string;
  version: string;
  manifest: PluginManifest;
  integrity: string;
  signatures: IntegritySignature[];
  sha512: string;
  size: number;
  publishedAt: string;
}

export interface PackageRow {
  name: string;
  owner: string;
  createdAt: string;
  versions: VersionRow[];
}

export interface PublisherToken {
  id: string;
  owner: string;
  label: string;
  createdAt: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS packages (name TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS versions (
  name TEXT NOT NULL REFERENCES packages(name), version TEXT NOT NULL, manifest TEXT NOT NULL,
  integrity TEXT NOT NULL, signatures TEXT NOT NULL, sha512 TEXT NOT NULL, size INTEGER NOT NULL,
  published_at TEXT NOT NULL, PRIMARY KEY (name, version));
CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, owner TEXT NOT NULL,
  label TEXT NOT NULL, created_at TEXT NOT NULL);
`;

export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");

export class RegistryStorage {
  readonly dataDir: string;
  readonly #db: DatabaseSync;

  constructor(dataDir: string) {
    this.dataDir = dataDir;
    mkdirSync(join(dataDir, "tarballs"), { recursive: true });
    this.#db = new DatabaseSync(join(dataDir, "registry.db"));
    this.#db.exec("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;");
    this.#db.exec(SCHEMA);
  }

  close(): void {
    this.#db.close();
  }

  /** Issues a publish token for `owner`; the token is returned once and only its hash is kept. */
  createToken(owner: string, label = ""): { token: string; record: PublisherToken } {
    if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(owner)) {
      throw registryError(
        "AIRLOCK_REGISTRY_BAD_REQUEST",
        `owner "${owner}" must match ^[a-z0-9][a-z0-9._-]{0,63}$`,
      );
    }
    const token = `airlock_reg_${randomBytes(32).toString("base64url")}`;
    const record = { id: randomBytes(8).toString("hex"), owner, label, createdAt: new Date().toISOString() };
    this.#db
      .prepare("INSERT INTO tokens (id, hash, owner, label, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(record.id, hashToken(token), owner, label, record.createdAt);
    return { token, record };
  }

  findToken(token: string): PublisherToken | null {
    const row = this.#db
      .prepare("SELECT id, owner, label, created_at FROM tokens WHERE hash = ?")
      .get(hashToken(token));
    if (row === undefined) return null;
    return {
      id: String(row.id),
      owner: String(row.owner),
      label: String(row.label),
      createdAt: String(row.created_at),
    };
  }

  packageNames(): string[] {
    return this.#db
      .prepare("SELECT name FROM packages ORDER BY name")
      .all()
      .map((r) => String(r.name));
  }

  getPackage(name: string): PackageRow | null {
    const pkg = this.#db.prepare("SELECT name, owner, created_at FROM packages WHERE name = ?").get(name);
    if (pkg === undefined) return null;
    const versions = this.#db
      .prepare("SELECT * FROM versions WHERE name = ? ORDER BY published_at, version")
      .all(name)
      .map(
        (r): VersionRow => ({
          name: String(r.name),
          version: String(r.version),
          manifest: JSON.parse(String(r.manifest)) as PluginManifest,
          integrity: String(r.integrity),
          signatures: JSON.parse(String(r.signatures)) as IntegritySignature[],
          sha512: String(r.sha512),
          size: Number(r.size),
          publishedAt: String(r.published_at),
        }),
      );
    return { name: String(pkg.name), owner: String(pkg.owner), createdAt: String(pkg.created_at), versions };
  }

  /** Writes tarball bytes under their sha512 (hex); idempotent. Returns the hex digest. */
  putTarball(bytes: Uint8Array): string {
    const hex = createHash("sha512").update(bytes).digest("hex");
    const dir = join(this.dataDir, "tarballs", hex.slice(0, 2));
    mkdirSync(dir, { recursive: true });
    const temp = join(dir, `.${hex}.${randomBytes(6).toString("hex")}.tmp`);
    writeFileSync(temp, bytes, { mode: 0o644, flag: "wx" });
    renameSync(temp, join(dir, hex));
    return hex;
  }

  readTarball(sha512Hex: string): Uint8Array {
    if (!/^[0-9a-f]{128}$/.test(sha512Hex))
      throw registryError("AIRLOCK_REGISTRY_NOT_FOUND", "no such tarball");
    return new Uint8Array(readFileSync(join(this.dataDir, "tarballs", sha512Hex.slice(0, 2), sha512Hex)));
  }

  /**
   * Records a version in one transaction. `claim(existingNames)` runs only when the package is
   * new (the name policy); an existing package must be owned by `owner`.
   */
  publishVersion(
    row: Omit<VersionRow, "publishedAt">,
    owner: string,
    claim: (existing: string[]) => void,
  ): VersionRow {
    const publishedAt = new Date().toISOString();
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const pkg = this.#db.prepare("SELECT owner FROM packages WHERE name = ?").get(row.name);
      if (pkg === undefined) {
        claim(this.packageNames());
        this.#db
          .prepare("INSERT INTO packages (name, owner, created_at) VALUES (?, ?, ?)")
          .run(row.name, owner, publishedAt);
      } else if (pkg.owner !== owner) {
        throw registryError("AIRLOCK_REGISTRY_FORBIDDEN", `"${row.name}" is owned by another publisher`, {
          name: row.name,
        });
      }
      const exists = this.#db
        .prepare("SELECT 1 FROM versions WHERE name = ? AND version = ?")
        .get(row.name, row.version);
      if (exists !== undefined) {
        throw registryError(
          "AIRLOCK_REGISTRY_VERSION_EXISTS",
          `${row.name}@${row.version} is already published; versions are immutable`,
          { name: row.name, version: row.version },
        );
      }
      this.#db
        .prepare(
          "INSERT INTO versions (name, version, manifest, integrity, signatures, sha512, size, published_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(
          row.name,
          row.version,
          JSON.stringify(row.manifest),
          row.integrity,
          JSON.stringify(row.signatures),
          row.sha512,
          row.size,
          publishedAt,
        );
      this.#db.exec("COMMIT");
      return { ...row, publishedAt };
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }
}
