// Backup and restore on a real host (in-process sandbox, SQLite in temp dirs): a round trip to
// another path that still serves the secret-using tool, the document and the token; where the
// master key is said to be; and every refusal of restore with its code — a non-empty target, and
// hostile archives (traversal, absolute paths, symlinks, hard links, devices, checksum and size
// mismatches, a truncated file, a wrong or missing manifest, a newer version) — each leaving no
// target, no temporary directory and nothing outside the target.
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { type CraftedEntry, gzip, tarArchive } from "@airlock/sdk/package";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Populated, populate, textOf } from "../../../../test/support/backup-fixture.ts";
import { createHost } from "../../host.ts";
import { createBackup, restoreBackup } from "./index.ts";

const work = mkdtempSync(join(tmpdir(), "airlock-backup-unit-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const source = join(work, "source");
const archive = join(work, "backup.tar.gz");
let facts: Populated;
/** The good archive's entries, in order (path and bytes), for crafting hostile variants. */
let entries: Array<{ path: string; body: Buffer }>;

function readEntries(tarGz: Buffer): Array<{ path: string; body: Buffer }> {
  const tar = gunzipSync(tarGz);
  const out: Array<{ path: string; body: Buffer }> = [];
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString("utf8").replace(/\0.*$/s, "");
    const prefix = header.subarray(345, 500).toString("utf8").replace(/\0.*$/s, "");
    const size = Number.parseInt(header.subarray(124, 136).toString("utf8").replace(/\0.*$/s, "").trim(), 8);
    const type = String.fromCharCode(header[156] as number);
    at += 512;
    if (type === "0" || type === "\0")
      out.push({
        path: prefix === "" ? name : `${prefix}/${name}`,
        body: Buffer.from(tar.subarray(at, at + size)),
      });
    at += Math.ceil(size / 512) * 512;
  }
  return out;
}

beforeAll(async () => {
  const host = await createHost({ dataDir: source, sandbox: { mode: "in-process" } });
  try {
    facts = await populate(host);
  } finally {
    await host.close();
  }
  const result = await createBackup({ dataDir: source, file: archive, env: {}, hostRunning: false });
  expect(result.manifest.masterKey).toEqual({ included: true, reference: null });
  entries = readEntries(readFileSync(archive));
}, 120_000);

describe("airlock backup and restore", () => {
  it("restores to another path a data dir that serves the secret-using tool, the document and the token", async () => {
    const target = join(work, "elsewhere", "restored");
    const restored = await restoreBackup(archive, target);
    expect(restored.dataDir).toBe(target);
    const host = await createHost({ dataDir: target, sandbox: { mode: "in-process" } });
    try {
      expect(textOf(await host.callTool("keeper", "vault:check", { guess: facts.apiKey }))).toBe("match");
      expect(textOf(await host.callTool("keeper", "vault:check", { guess: "wrong" }))).toBe("mismatch");
      expect(textOf(await host.callTool("keeper", "vault:recall", { id: facts.documentId }))).toBe(
        facts.documentContent,
      );
      expect((await host.authenticate(facts.agentToken))?.agent).toBe("keeper");
    } finally {
      await host.close();
    }
  }, 120_000);

  it("archives the manifest first, with every file's sha256, and no runtime files", () => {
    expect(entries[0]?.path).toBe("manifest.json");
    const manifest = JSON.parse((entries[0] as { body: Buffer }).body.toString("utf8")) as {
      files: Array<{ path: string; sha256: string; size: number }>;
    };
    const data = entries.slice(1);
    expect(data.map((e) => e.path)).toEqual(manifest.files.map((f) => `data/${f.path}`));
    for (const e of data) {
      const listed = manifest.files.find((f) => `data/${f.path}` === e.path);
      expect(listed?.sha256).toBe(createHash("sha256").update(e.body).digest("hex"));
    }
    const paths = manifest.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(["airlock.db", "audit.db", "master.key", "plugins/vault/1.0.0/index.js"]),
    );
    expect(paths.filter((p) => /-(wal|shm)$|^host\.json$|^audit-journal\//.test(p))).toEqual([]);
  });

  it("names where the master key is kept when the environment keeps it outside the data dir", async () => {
    const file = join(work, "keyref.tar.gz");
    const r = await createBackup({
      dataDir: source,
      file,
      env: { AIRLOCK_MASTER_KEY_FILE: "/run/secrets/airlock-key" },
      hostRunning: false,
    });
    expect(r.manifest.masterKey.included).toBe(false);
    expect(r.manifest.masterKey.reference).toContain("/run/secrets/airlock-key");
  });

  it("refuses to overwrite a file, a data dir without a store, and a PostgreSQL store", async () => {
    await expect(
      createBackup({ dataDir: source, file: archive, env: {}, hostRunning: false }),
    ).rejects.toMatchObject({
      code: "AIRLOCK_BACKUP_TARGET_EXISTS",
    });
    await expect(
      createBackup({
        dataDir: join(work, "nothing"),
        file: join(work, "n.tar.gz"),
        env: {},
        hostRunning: false,
      }),
    ).rejects.toMatchObject({ code: "AIRLOCK_BACKUP_SOURCE_MISSING" });
    await expect(
      createBackup({
        dataDir: source,
        file: join(work, "pg.tar.gz"),
        env: { AIRLOCK_STORE_URL: "postgres://x@127.0.0.1/db" },
        hostRunning: false,
      }),
    ).rejects.toMatchObject({ code: "AIRLOCK_BACKUP_STORE_UNSUPPORTED" });
    expect(existsSync(join(work, "pg.tar.gz"))).toBe(false);
  });

  it("refuses a non-empty target and leaves it as it was", async () => {
    const target = join(work, "full");
    mkdirSync(target);
    writeFileSync(join(target, "keep.txt"), "mine");
    await expect(restoreBackup(archive, target)).rejects.toMatchObject({
      code: "AIRLOCK_RESTORE_TARGET_NOT_EMPTY",
    });
    expect(readdirSync(target)).toEqual(["keep.txt"]);
  });

  it("restores into an existing empty directory", async () => {
    const target = join(work, "empty");
    mkdirSync(target);
    await restoreBackup(archive, target);
    expect(existsSync(join(target, "airlock.db"))).toBe(true);
  });
});

describe("airlock restore refuses a hostile archive, leaving nothing behind", () => {
  const manifestOf = (): Record<string, unknown> =>
    JSON.parse((entries[0] as { body: Buffer }).body.toString("utf8")) as Record<string, unknown>;
  const asEntries = (list: Array<{ path: string; body: Buffer }>): CraftedEntry[] =>
    list.map((e) => ({ path: e.path, body: e.body }));
  const withManifest = (m: Record<string, unknown>, rest: CraftedEntry[] = asEntries(entries.slice(1))) => [
    { path: "manifest.json", body: JSON.stringify(m) },
    ...rest,
  ];
  const listing = (m: Record<string, unknown>) =>
    m.files as Array<{ path: string; size: number; sha256: string }>;
  const evil = "evil-from-backup";

  const cases: Array<[string, string, () => Uint8Array]> = [
    [
      "an entry climbing out with ..",
      "AIRLOCK_RESTORE_UNSAFE_ENTRY",
      () => gzip(tarArchive(withManifest(manifestOf(), [{ path: `data/../../${evil}`, body: "x" }]))),
    ],
    [
      "an absolute entry",
      "AIRLOCK_RESTORE_UNSAFE_ENTRY",
      () => gzip(tarArchive(withManifest(manifestOf(), [{ path: join(work, evil), body: "x" }]))),
    ],
    [
      "a manifest listing a path that climbs out",
      "AIRLOCK_RESTORE_UNSAFE_ENTRY",
      () => {
        const m = manifestOf();
        listing(m).push({ path: `../${evil}`, size: 1, sha256: "0".repeat(64) });
        return gzip(tarArchive(withManifest(m)));
      },
    ],
    [
      "a symlink",
      "AIRLOCK_RESTORE_UNSAFE_ENTRY",
      () =>
        gzip(
          tarArchive(
            withManifest(manifestOf(), [{ path: "data/plugins/link", type: "2", linkpath: "/etc" }]),
          ),
        ),
    ],
    [
      "a hard link",
      "AIRLOCK_RESTORE_UNSAFE_ENTRY",
      () =>
        gzip(
          tarArchive(
            withManifest(manifestOf(), [{ path: "data/master.key", type: "1", linkpath: "/etc/passwd" }]),
          ),
        ),
    ],
    [
      "a device",
      "AIRLOCK_RESTORE_UNSAFE_ENTRY",
      () => gzip(tarArchive(withManifest(manifestOf(), [{ path: "data/dev", type: "3" }]))),
    ],
    [
      "a file whose bytes differ from its sha256",
      "AIRLOCK_RESTORE_CHECKSUM_MISMATCH",
      () =>
        gzip(
          tarArchive(
            withManifest(
              manifestOf(),
              asEntries(entries.slice(1)).map((e) =>
                e.path === "data/master.key"
                  ? { ...e, body: Buffer.from("A".repeat((e.body as Buffer).length)) }
                  : e,
              ),
            ),
          ),
        ),
    ],
    [
      "a file longer than its manifest says",
      "AIRLOCK_RESTORE_CHECKSUM_MISMATCH",
      () =>
        gzip(
          tarArchive(
            withManifest(
              manifestOf(),
              asEntries(entries.slice(1)).map((e) =>
                e.path === "data/plugins/vault/1.0.0/index.js"
                  ? { ...e, body: Buffer.concat([e.body as Buffer, Buffer.from("\n")]) }
                  : e,
              ),
            ),
          ),
        ),
    ],
    [
      "a truncated archive",
      "AIRLOCK_RESTORE_ARCHIVE_UNREADABLE",
      () => readFileSync(archive).subarray(0, 4000),
    ],
    [
      "something that is not an archive",
      "AIRLOCK_RESTORE_ARCHIVE_UNREADABLE",
      () => Buffer.from("not a tar at all\n".repeat(64)),
    ],
    [
      "an archive without its manifest first",
      "AIRLOCK_RESTORE_MANIFEST_INVALID",
      () =>
        gzip(
          tarArchive([
            ...asEntries(entries.slice(1)),
            { path: "manifest.json", body: (entries[0] as { body: Buffer }).body },
          ]),
        ),
    ],
    [
      "a manifest that is not JSON",
      "AIRLOCK_RESTORE_MANIFEST_INVALID",
      () => gzip(tarArchive([{ path: "manifest.json", body: "{nope" }, ...asEntries(entries.slice(1))])),
    ],
    [
      "a manifest listing a file the archive lacks",
      "AIRLOCK_RESTORE_MANIFEST_INVALID",
      () =>
        gzip(
          tarArchive(
            withManifest(
              manifestOf(),
              asEntries(entries.slice(1).filter((e) => e.path !== "data/master.key")),
            ),
          ),
        ),
    ],
    [
      "a file the manifest does not list",
      "AIRLOCK_RESTORE_MANIFEST_INVALID",
      () =>
        gzip(
          tarArchive(
            withManifest(manifestOf(), [...asEntries(entries.slice(1)), { path: "data/extra", body: "x" }]),
          ),
        ),
    ],
    [
      "a newer format",
      "AIRLOCK_RESTORE_VERSION_UNSUPPORTED",
      () => gzip(tarArchive(withManifest({ ...manifestOf(), formatVersion: 2 }))),
    ],
    [
      "a store schema newer than this build",
      "AIRLOCK_RESTORE_VERSION_UNSUPPORTED",
      () =>
        gzip(tarArchive(withManifest({ ...manifestOf(), store: { kind: "sqlite", schemaVersion: 9999 } }))),
    ],
  ];

  it.each(cases)("refuses %s with %s", async (_name, code, make) => {
    const dir = mkdtempSync(join(work, "hostile-"));
    const file = join(dir, "hostile.tar.gz");
    writeFileSync(file, make());
    const target = join(dir, "target");
    await expect(restoreBackup(file, target)).rejects.toMatchObject({ code });
    expect(readdirSync(dir)).toEqual(["hostile.tar.gz"]); // no target, no temporary directory
    expect(existsSync(join(work, evil))).toBe(false);
    expect(existsSync(join(dir, evil))).toBe(false);
  });

  it("restores the untouched entries re-packed the same way (the crafting itself is sound)", async () => {
    const dir = mkdtempSync(join(work, "repacked-"));
    const file = join(dir, "same.tar.gz");
    writeFileSync(file, gzip(tarArchive(withManifest(manifestOf()))));
    await restoreBackup(file, join(dir, "target"));
    expect(existsSync(join(dir, "target", "plugins", "vault", "1.0.0", "index.js"))).toBe(true);
  });
});
