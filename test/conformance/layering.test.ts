// Layering is enforced by scanning imports, not only by convention (STYLE.md):
// - sdk/ imports nothing of host/ or registry/ statically;
// - the part of the SDK bundled into plugins (sdk/src/index.ts and what it reaches) imports no node:* module;
// - only host/src/sandbox/ imports isolated-vm;
// - registry/ and host/ never import each other;
// - plugins/* import the SDK by its package name only (no relative reach outside the plugin, no host/registry).
// Test files (*.test.ts) may also import the shared helpers in test/support/.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']/g;

/** Every source file under `dir`; a scanned folder that is missing or empty fails the test. */
function sourceFiles(dir: string): string[] {
  const out = walkSources(dir);
  if (out.length === 0)
    throw new Error(`layering: ${dir} holds no source files (moved? then update this test)`);
  return out;
}

function walkSources(dir: string): string[] {
  const out: string[] = [];
  // a missing folder throws here (ENOENT): a scan that finds nothing must not pass
  const entries = readdirSync(dir);
  for (const name of entries) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walkSources(full));
    else if (/\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2]) as string);
}

function violations(files: string[], bad: (spec: string, file: string) => boolean): string[] {
  return files.flatMap((f) =>
    importsOf(f)
      .filter((s) => bad(s, f))
      .map((s) => `${relative(root, f)} imports ${s}`),
  );
}

/** A relative import leaving `folder`; tests may still reach the shared helpers in test/support/. */
const reachesOut = (spec: string, file: string, folder: string): boolean => {
  if (!spec.startsWith(".")) return false;
  const target = resolve(dirname(file), spec);
  if (file.endsWith(".test.ts") && relative(join(root, "test", "support"), target).split("/")[0] !== "..") {
    return false;
  }
  return relative(join(root, folder), target).startsWith("..");
};

describe("layering", () => {
  it("keeps sdk/ free of host/ and registry/ imports", () => {
    const files = sourceFiles(join(root, "sdk")).filter((f) => !f.includes("/test/fixtures/"));
    const bad = violations(
      files,
      (s, f) => s.startsWith("@airlock/host") || s.startsWith("@airlock/registry") || reachesOut(s, f, "sdk"),
    );
    expect(bad).toEqual([]);
  });

  it("keeps the bundled part of the SDK free of node:* modules", () => {
    const seen = new Set<string>();
    const bad: string[] = [];
    const walk = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of importsOf(file)) {
        if (spec.startsWith("node:") || ["fs", "path", "crypto", "child_process", "os"].includes(spec)) {
          bad.push(`${relative(root, file)} imports ${spec}`);
        } else if (spec.startsWith(".")) walk(resolve(dirname(file), spec));
      }
    };
    walk(join(root, "sdk/src/index.ts"));
    expect(bad).toEqual([]);
  });

  it("lets only host/src/sandbox/ import isolated-vm", () => {
    const files = ["sdk", "host", "registry", "plugins", "bench"].flatMap((d) => sourceFiles(join(root, d)));
    const bad = violations(
      files,
      (s, f) => s === "isolated-vm" && !relative(root, f).startsWith("host/src/sandbox/"),
    );
    expect(bad).toEqual([]);
  });

  it("keeps registry/ and host/ from importing each other", () => {
    const registry = violations(
      sourceFiles(join(root, "registry")),
      (s, f) => s.startsWith("@airlock/host") || reachesOut(s, f, "registry"),
    );
    const host = violations(
      sourceFiles(join(root, "host")),
      (s, f) => s.startsWith("@airlock/registry") || reachesOut(s, f, "host"),
    );
    expect([...registry, ...host]).toEqual([]);
  });

  it("has plugins import the SDK by its package name only", () => {
    const pluginsDir = join(root, "plugins");
    const bad: string[] = [];
    for (const name of readdirSync(pluginsDir)) {
      const dir = join(pluginsDir, name);
      if (!statSync(dir).isDirectory()) continue;
      bad.push(
        ...violations(
          sourceFiles(dir),
          (s, f) =>
            s.startsWith("@airlock/host") ||
            s.startsWith("@airlock/registry") ||
            (s.startsWith(".") && reachesOut(s, f, `plugins/${name}`)),
        ),
      );
    }
    expect(bad).toEqual([]);
  });
});
