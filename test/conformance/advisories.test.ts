// Known advisories the lockfile could avoid: security/advisories.json keeps a reviewed minimum
// version per runtime dependency with a published advisory (npm's audit endpoint is not reachable
// from these machines), and this test fails when package-lock.json installs any runtime copy of a
// listed package below its minimum, naming the copy, its version and the advisories.
import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

interface Advisory {
  package: string;
  minimum: string;
  ids: string[];
  note: string;
}
interface LockEntry {
  version?: string;
  dev?: boolean;
}

const root = new URL("../../", import.meta.url);
const advisories = (
  JSON.parse(readFileSync(new URL("security/advisories.json", root), "utf8")) as { advisories: Advisory[] }
).advisories;
const lock = JSON.parse(readFileSync(new URL("package-lock.json", root), "utf8")) as {
  packages: Record<string, LockEntry>;
};

/** Every installed runtime copy (not dev-only) of a listed package below its minimum, one line each. */
function belowMinimum(packages: Record<string, LockEntry>, list: readonly Advisory[]): string[] {
  const out: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    if (entry.dev === true || entry.version === undefined) continue;
    for (const a of list) {
      if (!path.endsWith(`node_modules/${a.package}`)) continue;
      if (semver.lt(entry.version, a.minimum)) {
        out.push(`${path} ${entry.version} < ${a.minimum} (${a.ids.join(", ")})`);
      }
    }
  }
  return out;
}

describe("runtime dependencies against the reviewed advisory list", () => {
  it("installs no runtime copy of a listed package below its minimum", () => {
    expect(belowMinimum(lock.packages, advisories)).toEqual([]);
  });

  it("lists each package once, with a valid minimum, advisory ids and a note, and each is in the lockfile", () => {
    expect(new Set(advisories.map((a) => a.package)).size).toBe(advisories.length);
    for (const a of advisories) {
      expect([a.package, semver.valid(a.minimum)]).toEqual([a.package, a.minimum]);
      expect(a.ids.length).toBeGreaterThan(0);
      for (const id of a.ids) expect(id).toMatch(/^(CVE-\d{4}-\d{4,}|GHSA(-[23456789cfghjmpqrvwx]{4}){3})$/);
      expect(a.note.length).toBeGreaterThan(20);
      expect(Object.keys(lock.packages).some((p) => p.endsWith(`node_modules/${a.package}`))).toBe(true);
    }
  });

  it("holds tar at 7.5.8 or later (CVE-2026-23745, CVE-2026-24842, CVE-2026-26960)", () => {
    const tar = advisories.find((a) => a.package === "tar");
    expect(semver.gte(tar?.minimum ?? "0.0.0", "7.5.8")).toBe(true);
    expect(tar?.ids).toEqual(expect.arrayContaining(["CVE-2026-23745", "CVE-2026-24842", "CVE-2026-26960"]));
  });

  it("finds a copy below its minimum, nested copies included, and passes over dev-only ones", () => {
    const packages: Record<string, LockEntry> = {
      "": {},
      "node_modules/tar": { version: "7.5.2" },
      "node_modules/a/node_modules/tar": { version: "7.5.24" },
      "node_modules/b/node_modules/tar": { version: "6.2.1" },
      "node_modules/c/node_modules/tar": { version: "7.4.0", dev: true },
      "node_modules/startar": { version: "1.0.0" },
    };
    expect(belowMinimum(packages, advisories)).toEqual([
      expect.stringMatching(/^node_modules\/tar 7\.5\.2 < /),
      expect.stringMatching(/^node_modules\/b\/node_modules\/tar 6\.2\.1 < /),
    ]);
  });
});
