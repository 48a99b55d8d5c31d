// Zod in the sandbox bundle: by default a plugin's bundle carries the small stand-in instead of
// Zod (the host validates input against the JSON Schema), runs in the REAL sandbox through
// testTool, and a parse() inside execute is an error result AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE;
// with `runtimeZod: true` the bundle carries real Zod and parses in the isolate; a schema rule
// the host cannot enforce fails the build without runtimeZod and builds with it.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFixture, type FixtureCopy, rejection } from "../../test/support/fixtures.ts";
import { testTool } from "../testing/index.ts";
import { buildPlugin } from "./build-plugin.ts";

const copies: FixtureCopy[] = [];
async function fixture(patch?: (source: string) => string): Promise<string> {
  const copy = await copyFixture("zod-stub");
  copies.push(copy);
  if (patch) {
    const file = join(copy.dir, "src/index.ts");
    await writeFile(file, patch(await readFile(file, "utf8")));
  }
  return copy.dir;
}
afterAll(async () => {
  await Promise.all(copies.splice(0).map((c) => c.remove()));
});

const withRuntimeZod = (s: string) =>
  s.replace('engine: "^1.0.0",', 'engine: "^1.0.0",\n  runtimeZod: true,');
const okInput = { city: "Oslo", unit: "metric", days: null, tags: ["a"], labels: {}, mode: "full" };

describe("sandbox bundle without runtimeZod", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await fixture();
  });

  it("carries the Zod stand-in, not Zod, in a small bundle", async () => {
    const built = await buildPlugin(dir);
    const code = await readFile(join(dir, "dist/index.js"), "utf8");
    expect(built.bundleSize).toBeLessThan(60 * 1024); // with Zod it was ~460 KB
    expect(code).toContain("// @airlock/sdk/src/runtime/schema-stub.ts");
    expect(code).not.toContain("zod/v4/core");
    expect(built.manifest.tools[0]?.inputSchema).toMatchObject({
      required: ["city", "unit", "days", "tags", "labels", "mode"],
      additionalProperties: false,
    });
  });

  it("runs in the real sandbox, with the host validating the input", async () => {
    const ok = await testTool({ pluginDir: dir, tool: "forecast", input: okInput });
    expect(ok.isError).not.toBe(true);
    expect(ok).toMatchObject({
      structuredContent: { city: "Oslo", days: 3, units: "metric|imperial", mode: "full" },
    });
    const bad = await testTool({ pluginDir: dir, tool: "forecast", input: { ...okInput, days: 99 } });
    expect(bad).toMatchObject({ isError: true, errorCode: "AIRLOCK_TOOL_INPUT_INVALID" });
  });

  it("turns a parse() inside execute into an error result AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE", async () => {
    const result = await testTool({
      pluginDir: dir,
      tool: "strictParse",
      input: { city: "Oslo", unit: "metric" },
    });
    // The sandbox reports any throw as TOOL_THREW (the thrown code rides in details.errorCode);
    // the stand-in's message starts with its own code, so the error result carries it.
    expect(result).toMatchObject({ isError: true, errorCode: "AIRLOCK_SANDBOX_TOOL_THREW" });
    const text = JSON.stringify(result.content);
    expect(text).toContain("AIRLOCK_SDK_ZOD_RUNTIME_UNAVAILABLE: parse() is not available");
    expect(text).toContain("runtimeZod: true");
  });
});

describe("sandbox bundle with runtimeZod: true", () => {
  it("carries real Zod, and parse() in the isolate works", async () => {
    const dir = await fixture(withRuntimeZod);
    const built = await buildPlugin(dir);
    expect(built.bundleSize).toBeGreaterThan(200 * 1024);
    expect(await readFile(join(dir, "dist/index.js"), "utf8")).not.toContain("schema-stub");
    const result = await testTool({
      pluginDir: dir,
      tool: "strictParse",
      input: { city: "Oslo", unit: "metric" },
    });
    expect(result.isError).not.toBe(true);
    expect(result).toMatchObject({ structuredContent: { city: "Oslo" } });
  });
});

describe("build-time safety without runtimeZod", () => {
  const refine = (s: string) =>
    s.replace("city: z.string().min(1).max(80)", 'city: z.string().refine((c) => c !== "x")');

  it("fails a schema rule JSON Schema cannot carry, naming tool, path and fix, and writes nothing", async () => {
    const dir = await fixture(refine);
    const err = await rejection(() => buildPlugin(dir));
    expect(err.code).toBe("AIRLOCK_SDK_SCHEMA_UNENFORCEABLE");
    expect(err.details).toEqual({ tool: "forecast", path: "$.properties.city", construct: "refine" });
    expect(err.message).toContain("runtimeZod: true");
  });

  it.each([
    ["transform", '.describe("City name.")', '.transform((c) => c.toUpperCase()).describe("City name.")'],
    ["pipe", '.describe("City name.")', '.pipe(z.string()).describe("City name.")'],
    ["coerce", "days: z.number()", "days: z.coerce.number()"],
    [
      "default",
      '.nullable().describe("Forecast days, null for 3.")',
      '.default(3).describe("Forecast days.")',
    ],
  ])("fails the build on %s", async (construct, from, to) => {
    const dir = await fixture((s) => s.replace(from, to));
    const err = await rejection(() => buildPlugin(dir));
    expect(err).toMatchObject({ code: "AIRLOCK_SDK_SCHEMA_UNENFORCEABLE", details: { construct } });
  });

  it("builds the same schema with runtimeZod: true", async () => {
    const dir = await fixture((s) => withRuntimeZod(refine(s)));
    await expect(buildPlugin(dir)).resolves.toMatchObject({ manifest: { namespace: "fixture-zod-stub" } });
  });
});
