// BundleCompiler: the cache read from disk is handed to V8 for every compile of the runtime
// (each replacement isolate) and accepted each time; a produced cache is kept and serves the next.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ivm from "isolated-vm";
import { afterAll, describe, expect, it } from "vitest";
import { BundleCompiler } from "./bundle-compiler.ts";
import { makePlugin } from "./plugin-fixture.ts";

const KEY = randomBytes(32).toString("base64");
const CODE = `${Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x * ${i} + 1; }`).join("\n")}
globalThis.answer = f7(6);`;

type Compiled = ivm.Script & { cachedDataRejected?: boolean };

async function compileIn(
  compiler: BundleCompiler,
): Promise<{ rejected: boolean | undefined; answer: unknown }> {
  const isolate = new ivm.Isolate({ memoryLimit: 32 });
  try {
    const script = (await compiler.compile(isolate)) as Compiled;
    const context = await isolate.createContext();
    await script.run(context);
    return { rejected: script.cachedDataRejected, answer: await context.global.get("answer") };
  } finally {
    isolate.dispose();
  }
}

describe("BundleCompiler", () => {
  const dir = mkdtempSync(join(tmpdir(), "airlock-bc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("hands the cache read from disk to every compile, and V8 accepts it each time", async () => {
    const path = join(dir, "p.cache");
    const plugin = makePlugin({
      namespace: "bc",
      code: CODE,
      tools: ["t"],
      codeCachePath: path,
      codeCacheKey: KEY,
    });
    const warnings: string[] = [];
    // the first runtime has no file: it produces the cache, keeps it and writes it
    const first = new BundleCompiler(plugin, (m) => warnings.push(m));
    expect(await compileIn(first)).toEqual({ rejected: undefined, answer: 43 });
    expect(first.warmPending).toBe(true);
    // it keeps the produced cache for its next isolate
    expect(await compileIn(first)).toEqual({ rejected: false, answer: 43 });
    // a second runtime reads the file once and uses it for three isolates in a row
    const second = new BundleCompiler(plugin, (m) => warnings.push(m));
    for (let i = 0; i < 3; i++) expect(await compileIn(second)).toEqual({ rejected: false, answer: 43 });
    expect(second.warmPending).toBe(false);
    expect(warnings).toEqual([]);
  });
});
