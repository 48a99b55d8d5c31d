// Hostile plugin tarballs against the in-memory reader: each attack is refused with its own
// code, and the reader keeps working (a good tarball still reads) after every refusal.
import { gzipSync } from "node:zlib";
import {
  type CraftedEntry,
  gzip,
  paxRecord,
  readPluginTarball,
  samplePluginFiles,
  samplePluginTarball,
  tarArchive,
} from "@airlock/sdk/package";
import { describe, expect, it } from "vitest";
import { PACKAGE_ERRORS } from "../../sdk/src/package/errors.ts";

const good = samplePluginFiles({ namespace: "weather", version: "1.0.0" });
const goodEntries: CraftedEntry[] = [
  { path: "package/package.json", body: good.packageJson },
  { path: "package/airlock.json", body: good.manifest },
  { path: "package/index.js", body: good.bundle },
];
const withEntries = (...extra: CraftedEntry[]): Uint8Array => gzip(tarArchive([...goodEntries, ...extra]));

function corruptChecksum(): Uint8Array {
  const tar = tarArchive(goodEntries);
  tar[148] = "7".charCodeAt(0);
  tar[149] = "7".charCodeAt(0);
  return gzip(tar);
}

const attacks: Array<{
  name: string;
  code: string;
  bytes: () => Uint8Array;
  limits?: Record<string, number>;
}> = [
  {
    name: "a `..` path",
    code: "AIRLOCK_PACKAGE_PATH_TRAVERSAL",
    bytes: () => withEntries({ path: "package/../../evil.js", body: "x" }),
  },
  {
    name: "a pax header that rewrites a path to escape",
    code: "AIRLOCK_PACKAGE_PATH_TRAVERSAL",
    bytes: () =>
      gzip(
        tarArchive([
          { path: "PaxHeader/x", type: "x", body: paxRecord("path", "../../../tmp/pwned.js") },
          { path: "package/index.js", body: good.bundle },
        ]),
      ),
  },
  {
    name: "an absolute path",
    code: "AIRLOCK_PACKAGE_ABSOLUTE_PATH",
    bytes: () => withEntries({ path: "/etc/cron.d/evil", body: "x" }),
  },
  {
    name: "a symlink disguised as the bundle",
    code: "AIRLOCK_PACKAGE_SYMLINK",
    bytes: () =>
      gzip(tarArchive([{ path: "package/index.js", type: "2", linkpath: "/etc/passwd" }, ...goodEntries])),
  },
  {
    name: "a hard link",
    code: "AIRLOCK_PACKAGE_HARDLINK",
    bytes: () =>
      gzip(tarArchive([{ path: "package/index.js", type: "1", linkpath: "package/package.json" }])),
  },
  {
    name: "a character device",
    code: "AIRLOCK_PACKAGE_SPECIAL_FILE",
    bytes: () => withEntries({ path: "package/tty", type: "3" }),
  },
  {
    name: "a FIFO",
    code: "AIRLOCK_PACKAGE_SPECIAL_FILE",
    bytes: () => withEntries({ path: "package/pipe", type: "6" }),
  },
  {
    name: "a duplicate bundle entry that would overwrite the checked one",
    code: "AIRLOCK_PACKAGE_DUPLICATE_ENTRY",
    bytes: () => withEntries({ path: "package/index.js", body: "globalThis.evil = 1;" }),
  },
  {
    name: "an unexpected file",
    code: "AIRLOCK_PACKAGE_UNEXPECTED_FILE",
    bytes: () => withEntries({ path: "package/.npmrc", body: "x" }),
  },
  {
    name: "a file under package/ui/ that is not a UI file (<name>.html)",
    code: "AIRLOCK_PACKAGE_UNEXPECTED_FILE",
    bytes: () => withEntries({ path: "package/ui/loader.js", body: "x" }),
  },
  {
    name: "a UI file in a folder below package/ui/",
    code: "AIRLOCK_PACKAGE_UNEXPECTED_FILE",
    bytes: () => withEntries({ path: "package/ui/deep/x.html", body: "x" }),
  },
  {
    name: "a folder below package/ui/",
    code: "AIRLOCK_PACKAGE_UNEXPECTED_FILE",
    bytes: () => withEntries({ path: "package/ui/deep/", type: "5" }),
  },
  {
    name: "a non-canonical spelling of an expected path",
    code: "AIRLOCK_PACKAGE_UNEXPECTED_FILE",
    bytes: () => gzip(tarArchive([{ path: "package/./index.js", body: good.bundle }])),
  },
  {
    name: "a missing bundle",
    code: "AIRLOCK_PACKAGE_MISSING_FILE",
    bytes: () => gzip(tarArchive(goodEntries.slice(0, 2))),
  },
  {
    name: "a file over the per-entry cap",
    code: "AIRLOCK_PACKAGE_ENTRY_TOO_LARGE",
    bytes: () => withEntries(),
    limits: { maxEntryBytes: 64 },
  },
  {
    name: "more entries than the cap (a flood of pax headers)",
    code: "AIRLOCK_PACKAGE_TOO_MANY_ENTRIES",
    bytes: () =>
      gzip(
        tarArchive([
          ...Array.from(
            { length: 40 },
            (_, i): CraftedEntry => ({ path: `PaxHeader/${i}`, type: "x", body: paxRecord("comment", "x") }),
          ),
          ...goodEntries,
        ]),
      ),
  },
  {
    name: "a decompression bomb (64 MiB of zeros in 64 KiB)",
    code: "AIRLOCK_PACKAGE_INFLATED_TOO_LARGE",
    bytes: () => new Uint8Array(gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 })),
  },
  {
    name: "a tarball over the compressed cap",
    code: "AIRLOCK_PACKAGE_TOO_LARGE",
    bytes: () => withEntries(),
    limits: { maxCompressedBytes: 100 },
  },
  { name: "bytes that are not gzip", code: "AIRLOCK_PACKAGE_NOT_GZIP", bytes: () => tarArchive(goodEntries) },
  { name: "a gzip inside the gzip", code: "AIRLOCK_PACKAGE_TAR_INVALID", bytes: () => gzip(withEntries()) },
  {
    name: "a header with a bad checksum (a tar warning)",
    code: "AIRLOCK_PACKAGE_TAR_INVALID",
    bytes: corruptChecksum,
  },
  {
    name: "a bundle swapped after the manifest was built",
    code: "AIRLOCK_PACKAGE_BUNDLE_MISMATCH",
    bytes: () =>
      gzip(
        tarArchive([
          goodEntries[0] as CraftedEntry,
          goodEntries[1] as CraftedEntry,
          { path: "package/index.js", body: good.bundle.replace("JSON.stringify(input)", "'pwned'") },
        ]),
      ),
  },
  {
    name: "an airlock.json that is not JSON",
    code: "AIRLOCK_PACKAGE_JSON_INVALID",
    bytes: () =>
      gzip(
        tarArchive([
          goodEntries[0] as CraftedEntry,
          { path: "package/airlock.json", body: "{nope" },
          goodEntries[2] as CraftedEntry,
        ]),
      ),
  },
  {
    name: "a package.json holding a lone surrogate",
    code: "AIRLOCK_PACKAGE_JSON_NOT_UNICODE",
    bytes: () =>
      gzip(
        tarArchive([
          {
            path: "package/package.json",
            body: good.packageJson.replace(/^\{/, '{"description":"half \\ud800 a pair",'),
          },
          goodEntries[1] as CraftedEntry,
          goodEntries[2] as CraftedEntry,
        ]),
      ),
  },
];

describe("hostile tarballs against readPluginTarball", () => {
  for (const attack of attacks) {
    it(`refuses ${attack.name} with ${attack.code}, and still reads a good tarball afterwards`, async () => {
      const err = await readPluginTarball(attack.bytes(), attack.limits).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: attack.code });
      expect(String((err as Error).message)).not.toContain(good.bundle);
      const healthy = await readPluginTarball(
        samplePluginTarball({ namespace: "weather", version: "1.0.0" }),
      );
      expect(healthy.manifest.namespace).toBe("weather");
    });
  }

  it("gives each kind of attack its own code, covering the reader's archive codes", () => {
    // Attacks sharing a code are variants of one kind (two traversal spellings, two special
    // files, two malformed tars, five unexpected files). The codes not produced here are about
    // file contents, proven elsewhere: BUNDLE_INVALID and METADATA_MISMATCH in
    // sdk/src/package/read-plugin-tarball.test.ts, JSON_DUPLICATE_KEY in names-input.test.ts,
    // the UI_* codes (plugin UIs against their manifest) in mcp-apps.test.ts.
    const elsewhere = [
      "AIRLOCK_PACKAGE_BUNDLE_INVALID",
      "AIRLOCK_PACKAGE_METADATA_MISMATCH",
      "AIRLOCK_PACKAGE_JSON_DUPLICATE_KEY",
      "AIRLOCK_PACKAGE_UI_UNLISTED",
      "AIRLOCK_PACKAGE_UI_MISSING",
      "AIRLOCK_PACKAGE_UI_MISMATCH",
      "AIRLOCK_PACKAGE_UI_CSP",
      "AIRLOCK_PACKAGE_UI_UNKNOWN",
    ];
    const codes = [...new Set(attacks.map((a) => a.code))].sort();
    expect(codes).toEqual(
      Object.keys(PACKAGE_ERRORS)
        .filter((c) => !elsewhere.includes(c))
        .sort(),
    );
  });
});

describe("malformed archives never hang the reader or escape as uncoded errors", () => {
  it("refuses every truncation and bit-flip of a good archive with a coded error", async () => {
    const tar = tarArchive(goodEntries);
    const truncated: Uint8Array[] = [];
    const flipped: Uint8Array[] = [];
    // Cuts inside the trailing zero blocks leave every entry whole (tar 7 then reads a complete
    // archive); cuts before the last non-zero byte lose part of an entry and must be refused.
    let contentEnd = tar.length;
    while (contentEnd > 0 && tar[contentEnd - 1] === 0) contentEnd--;
    for (let cut = 0; cut < contentEnd; cut += 173) truncated.push(gzip(tar.subarray(0, cut)));
    for (let at = 0; at < 1536; at += 97) {
      const copy = new Uint8Array(tar);
      copy[at] = (copy[at] as number) ^ 0x5a;
      flipped.push(gzip(copy));
    }
    const gz = withEntries();
    for (let cut = 10; cut < gz.length; cut += Math.ceil(gz.length / 12)) truncated.push(gz.subarray(0, cut));
    const outcome = (bytes: Uint8Array) =>
      readPluginTarball(bytes).then(
        () => "accepted",
        (e: unknown) => String((e as { code?: unknown }).code),
      );
    const coded = /^(AIRLOCK_PACKAGE_[A-Z_]+|AIRLOCK_MANIFEST_INVALID)$/;
    // A cut archive is never accepted: it is missing part of an entry or its gzip trailer.
    const cuts = await Promise.all(truncated.map(outcome));
    for (const code of cuts) expect(code).toMatch(coded);
    expect(cuts).toContain("AIRLOCK_PACKAGE_TAR_INVALID");
    // A flip inside a file body of JSON or the bundle may still parse; a refusal carries a code.
    for (const code of await Promise.all(flipped.map(outcome)))
      expect(code).toMatch(/^(accepted|AIRLOCK_PACKAGE_[A-Z_]+|AIRLOCK_MANIFEST_INVALID)$/);
  });
});
