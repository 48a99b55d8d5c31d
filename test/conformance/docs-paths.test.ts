// The README and docs/*.md cannot point at what is not there: every relative link names a file
// that exists, every `host/src/...` path they name exists, and docs/architecture.md names every
// layer folder of host/src and only files that exist (its call paths are read from today's
// code; a file moved or renamed fails here until the page follows it).
// Invariants: the scan finds the pages it checks (an empty docs/ fails); anchors (#…) and
// absolute URLs are not checked.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const src = join(root, "host", "src");
const pages = [
  join(root, "README.md"),
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(root, "docs", name)),
];
const read = (file: string): string => readFileSync(file, "utf8");

/** A path that may end in a glob (`runtime/isolate/*.js`): the part before the glob must exist. */
function exists(path: string): boolean {
  const star = path.indexOf("*");
  return existsSync(star < 0 ? path : dirname(path.slice(0, star + 1)));
}

describe("paths in the README and docs/", () => {
  it("finds the pages, the architecture page among them", () => {
    expect(pages.length).toBeGreaterThan(10);
    expect(pages).toContain(join(root, "docs", "architecture.md"));
  });

  it("has every relative link name a file that exists", () => {
    const broken = pages.flatMap((page) =>
      [...read(page).matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1] as string)
        .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith("#"))
        .filter((target) => !exists(resolve(dirname(page), target.split("#")[0] as string)))
        .map((target) => `${relative(root, page)} links ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it("has every host/src path it names exist", () => {
    const missing = pages.flatMap((page) =>
      [...read(page).matchAll(/host\/src\/[A-Za-z0-9_./*-]*/g)]
        .map((m) => m[0].replace(/[.]+$/, ""))
        .filter((path) => !exists(join(root, path)))
        .map((path) => `${relative(root, page)} names ${path}`),
    );
    expect(missing).toEqual([]);
  });
});

describe("docs/architecture.md", () => {
  const doc = read(join(root, "docs", "architecture.md"));

  it("names every layer folder of host/src in its layer table", () => {
    const table = doc.slice(
      doc.indexOf("| rank | layer |"),
      doc.indexOf("`test/conformance/layering.test.ts`"),
    );
    const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
    expect(folders.length).toBeGreaterThan(0);
    expect(folders.filter((name) => !table.includes(`| \`${name}/\` |`))).toEqual([]);
  });

  it("marks the tool call's path for updating and names only files of host/src that exist", () => {
    const start = doc.indexOf("<!-- call-path -->");
    const end = doc.indexOf("<!-- /call-path -->");
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const named = [
      ...doc.matchAll(/`((?:surfaces|engine|isolation|state|contracts)\/[A-Za-z0-9_./-]+\.(?:ts|js))`/g),
    ].map((m) => m[1] as string);
    const callPath = [...doc.slice(start, end).matchAll(/`((?:surfaces|engine|isolation)\/[^`]+\.ts)`/g)];
    expect(callPath.length).toBeGreaterThan(10);
    expect(named.filter((path) => !existsSync(join(src, path)))).toEqual([]);
  });
});
