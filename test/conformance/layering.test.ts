// Layering is enforced by scanning imports, not only by convention (STYLE.md):
// - sdk/ imports nothing of host/ or registry/ statically;
// - the part of the SDK bundled into plugins (sdk/src/index.ts and what it reaches) imports no node:* module;
// - only host/src/isolation/sandbox/ imports isolated-vm;
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

  it("lets only host/src/isolation/sandbox/ import isolated-vm", () => {
    const files = ["sdk", "host", "registry", "plugins", "bench"].flatMap((d) => sourceFiles(join(root, d)));
    const bad = violations(
      files,
      (s, f) => s === "isolated-vm" && !relative(root, f).startsWith("host/src/isolation/sandbox/"),
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

  describe("host/src in five layers", () => {
    const src = join(root, "host", "src");
    // test code (suites and their fixtures) may reach any layer; the rules are for what ships
    const shipped = sourceFiles(src).filter((f) => !isTestCode(f));
    const graph = importGraph(shipped, src);

    it("points every import down or across its own layer", () => {
      const bad = [...graph].flatMap(([file, targets]) =>
        targets
          .filter((t) => RANK[layerOf(t, src)] > RANK[layerOf(file, src)])
          .map(
            (t) =>
              `${relative(src, file)} (${layerOf(file, src)}) imports ${relative(src, t)} (${layerOf(t, src)})`,
          ),
      );
      expect(bad).toEqual([]);
    });

    it("has surfaces reach the engine only through the contracts and the composition root", () => {
      const bad = [...graph]
        .filter(([file]) => layerOf(file, src) === "surfaces")
        .flatMap(([file, targets]) =>
          targets
            .filter((t) => !["surfaces", "root", "contracts"].includes(layerOf(t, src)))
            .map((t) => `${relative(src, file)} imports ${relative(src, t)}`),
        );
      expect(bad).toEqual([]);
    });

    it("has contracts import only each other and the SDK's types", () => {
      const bad = violations(
        shipped.filter((f) => layerOf(f, src) === "contracts"),
        (s, f) =>
          s.startsWith(".")
            ? layerOf(resolve(dirname(f), s), src) !== "contracts"
            : !s.startsWith("@airlock/sdk") && !s.startsWith("@modelcontextprotocol/server"),
      );
      expect(bad).toEqual([]);
    });

    it("holds no import circle, however long", () => {
      const circles = stronglyConnected(graph).map((c) =>
        c
          .map((f) => relative(src, f))
          .sort()
          .join(" ⇄ "),
      );
      expect(circles).toEqual([]);
    });

    it("puts every shipped file in a layer", () => {
      const loose = shipped.filter((f) => layerOf(f, src) === "unknown").map((f) => relative(src, f));
      expect(loose).toEqual([]);
    });
  });
});

type Layer = "surfaces" | "root" | "engine" | "isolation" | "state" | "contracts" | "unknown";
const RANK: Record<Layer, number> = {
  contracts: 0,
  state: 1,
  isolation: 2,
  engine: 3,
  root: 4,
  surfaces: 5,
  unknown: 6,
};
/** The composition root: the files that open the parts and wire them (host.ts) and export them. */
const ROOT_FILES = new Set(["host.ts", "index.ts", "config.ts"]);

function layerOf(file: string, src: string): Layer {
  const rel = relative(src, file);
  if (ROOT_FILES.has(rel)) return "root";
  const top = rel.split("/")[0] as string;
  return top in RANK && top !== "root" && rel.includes("/") ? (top as Layer) : "unknown";
}

function isTestCode(file: string): boolean {
  const name = file.slice(file.lastIndexOf("/") + 1);
  return /\.test\.ts$/.test(name) || /^test-[a-z-]+\.ts$/.test(name) || name === "plugin-fixture.ts";
}

/** Every relative import (static, type-only, re-export or dynamic) from one shipped file to another. */
function importGraph(files: string[], src: string): Map<string, string[]> {
  const known = new Set(files);
  const DYNAMIC = /import\(\s*["'](\.[^"']+)["']\s*\)/g;
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const specs = [...importsOf(file), ...[...text.matchAll(DYNAMIC)].map((m) => m[1] as string)];
    const targets = specs
      .filter((s) => s.startsWith("."))
      .map((s) => resolve(dirname(file), s))
      .map((t) => (known.has(t) ? t : known.has(join(t, "index.ts")) ? join(t, "index.ts") : t))
      .filter((t) => known.has(t) && t.startsWith(src));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Tarjan's strongly connected components of more than one file: each is an import circle. */
function stronglyConnected(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}
