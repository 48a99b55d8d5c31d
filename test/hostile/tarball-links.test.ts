// The link patterns of node-tar's 2026 advisories (CVE-2026-23745: a hard link inside the root
// whose target is outside it; CVE-2026-24842: a hard link whose target climbs out with `..`;
// CVE-2026-26960: a symlink chain, then an entry written through it), as plugin tarballs against
// the real host (SQLite, in-process sandbox, real installer). The installer never extracts: it
// reads the three files' bytes in memory and refuses any link. Each archive is refused with its
// exact code and audited, nothing is written outside the host's data directory (the canary file
// beside it keeps one link and its bytes; no link exists anywhere under the data directory),
// nothing is stored, and the host keeps serving. A second block extracts the same archives with
// the `tar` package itself (default options), as any other reader of these bytes would, to keep
// the dependency at a version that holds them (7.5.2 hard-linked the canary into the root for three
// of the four).
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CraftedEntry, gzip, samplePluginFiles, tarArchive } from "@airlock/sdk/package";
import { extract } from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";
import { tree } from "../support/fs-tree.ts";

/** Every path under a root, never following a symlink (a link out must not lead the walk out). */
function walk(root: string, at = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, at))) {
    const p = join(at, name);
    out.push(p);
    if (lstatSync(join(root, p)).isDirectory()) out.push(...walk(root, p));
  }
  return out;
}

const SECRET = "sk-tarball-links-51c0de";
const CANARY = "canary: the bytes outside the root\n";
let t: TestHost;
let outside: string;
let canary: string;

beforeAll(async () => {
  t = await openTestHost([
    {
      namespace: "payments",
      tools: [
        {
          name: "keyed",
          code: "async () => 'ok'",
          annotations: { readOnlyHint: true },
          requiredSecrets: [{ key: "api_key", type: "text", optional: false, sensitive: true }],
        },
      ],
    },
  ]);
  await t.host.createAgent("ada");
  await t.host.setToolsEnabled("ada", { "payments:keyed": true });
  await t.host.setSecrets("ada", { api_key: SECRET });
  outside = mkdtempSync(join(tmpdir(), "airlock-out-"));
  canary = join(outside, "canary.txt");
  writeFileSync(canary, CANARY);
});
afterAll(async () => {
  await t?.close();
  rmSync(outside, { recursive: true, force: true });
});

const files = samplePluginFiles({ namespace: "linky", version: "1.0.0", engine: ">=0.1.0" });
const manifestAndPackage: CraftedEntry[] = [
  { path: "package/package.json", body: files.packageJson },
  { path: "package/airlock.json", body: files.manifest },
];

/** [advisory, pattern, code, archive entries]; the canary's path is known only once it exists. */
const patterns = (): Array<[string, string, string, CraftedEntry[]]> => [
  [
    "CVE-2026-23745",
    "a hard link inside the root whose target is outside it",
    "AIRLOCK_PACKAGE_HARDLINK",
    [...manifestAndPackage, { path: "package/index.js", type: "1", linkpath: canary }],
  ],
  [
    "CVE-2026-24842",
    "a deep hard link whose target climbs out with ..",
    "AIRLOCK_PACKAGE_PATH_TRAVERSAL",
    [
      ...manifestAndPackage,
      { path: "package/a/b/c/d/index.js", type: "1", linkpath: `../../../../../..${canary}` },
    ],
  ],
  [
    "CVE-2026-26960",
    "a symlink to a directory outside, then a file written through it",
    "AIRLOCK_PACKAGE_SYMLINK",
    [
      { path: "package/lib", type: "2", linkpath: outside },
      { path: "package/lib/canary.txt", body: "overwritten" },
      ...manifestAndPackage,
    ],
  ],
  [
    "CVE-2026-26960",
    "a symlink chain (up -> ../.., escape -> up/../.. to /), then a hard link through it",
    "AIRLOCK_PACKAGE_PATH_TRAVERSAL",
    [
      { path: "package/a/b/c/up", type: "2", linkpath: "../.." },
      { path: "package/a/b/escape", type: "2", linkpath: `c/up${"/..".repeat(24)}` },
      { path: "package/exfil", type: "1", linkpath: `package/a/b/escape${canary}` },
      ...manifestAndPackage,
    ],
  ],
];

/** Nothing outside the root changed: the canary keeps its bytes and its one link, and sits alone. */
function expectOutsideUntouched(): void {
  expect(readFileSync(canary, "utf8")).toBe(CANARY);
  expect(statSync(canary).nlink).toBe(1);
  expect(tree(outside)).toEqual(["canary.txt"]);
}

/** No symlink anywhere under a root, and no file in it shares the canary's inode. */
function expectNoLinks(root: string): void {
  const ino = statSync(canary).ino;
  for (const p of walk(root)) {
    const s = lstatSync(join(root, p));
    expect(s.isSymbolicLink(), p).toBe(false);
    expect(s.ino === ino, p).toBe(false);
  }
}

async function expectHealthy(): Promise<void> {
  expect((await t.host.listTools()).map((x) => `${x.namespace}:${x.name}`)).toEqual(["payments:keyed"]);
  const out = await t.host.callTool("ada", "payments:keyed", {});
  expect(out.errorCode).toBeUndefined();
  expect(JSON.stringify(await t.host.queryAudit({ limit: 10_000 }))).not.toContain(SECRET);
}

describe("node-tar advisories' link patterns through the installer", () => {
  it("lists one pattern per advisory", () => {
    expect(new Set(patterns().map(([advisory]) => advisory))).toEqual(
      new Set(["CVE-2026-23745", "CVE-2026-24842", "CVE-2026-26960"]),
    );
  });

  for (const [advisory, pattern, code] of patterns()) {
    it(`refuses ${pattern} (${advisory}) with ${code}, writing and storing nothing`, async () => {
      const entries = patterns().find(([a, p]) => a === advisory && p === pattern)?.[3] ?? [];
      const bytes = gzip(tarArchive(entries));
      const err = await t.host.plugins
        .installTarball(bytes, "/tmp/linky.tgz", { allowUnsigned: true })
        .catch((e: unknown) => e as { code?: string; message?: string });
      expect(err).toMatchObject({ code });
      expect(String((err as { message?: string }).message)).not.toContain(SECRET);
      const rows = (await t.host.queryAudit({ kind: "admin" })).filter((r) => r.action === "plugin.install");
      expect(rows[0]?.error).toBe(code);
      expect(await (await t.store()).listInstalledPlugins("linky")).toEqual([]);
      expect(tree(join(t.dir, "plugins")).filter((p) => p.includes("linky"))).toEqual([]);
      expectNoLinks(t.dir);
      expectOutsideUntouched();
      await expectHealthy();
    });
  }
});

describe("the tar dependency extracting the same archives with default options", () => {
  for (const [advisory, pattern] of patterns()) {
    it(`keeps ${pattern} (${advisory}) inside the extraction root`, async () => {
      const entries = patterns().find(([a, p]) => a === advisory && p === pattern)?.[3] ?? [];
      const root = mkdtempSync(join(tmpdir(), "airlock-extract-"));
      try {
        const archive = join(root, "x.tgz");
        writeFileSync(archive, gzip(tarArchive(entries)));
        const into = join(root, "root");
        mkdirSync(into);
        const warnings: string[] = [];
        await extract({ file: archive, cwd: into, onwarn: (code) => warnings.push(code) }).catch(
          (e: unknown) => warnings.push(String((e as { code?: string }).code)),
        );
        expectOutsideUntouched();
        const ino = statSync(canary).ino;
        for (const p of walk(into)) expect(lstatSync(join(into, p)).ino === ino, p).toBe(false);
        expect(warnings).toContain("TAR_ENTRY_ERROR"); // the link is refused, not silently followed
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  }
});
