// Builds the benchmark plugin with the SDK's real build and pack, optionally padded with
// generated code to a target bundle size (cold-start rows compare 50 KB and 500 KB bundles).
// Tools: echo (trivial), spin (CPU-bound), caps (N capability calls of one kind),
// runaway (a sync infinite loop) and stall (awaits forever); a row may build its own source.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildPlugin, packPlugin } from "@airlock/sdk/build";
import type { PluginManifest } from "@airlock/sdk/manifest";

const WORK = resolve(import.meta.dirname, "..", ".work");

const SOURCE = `
import { definePlugin, defineTool } from "@airlock/sdk";
import { z } from "zod";
import { padding } from "./pad.ts";

const ro = { readOnlyHint: true };

export default definePlugin({
  namespace: "__NS__",
  version: "__VERSION__",
  engine: ">=0.1.0",
  description: "Benchmark tools.",
  tools: [
    defineTool({
      name: "echo",
      description: "Returns its input text.",
      category: "bench",
      annotations: ro,
      parameters: z.object({ text: z.string().describe("Text to return.") }),
      execute: async (input) => input.text,
    }),
    defineTool({
      name: "spin",
      description: "Burns CPU for n iterations and returns a checksum.",
      category: "bench",
      annotations: ro,
      parameters: z.object({ n: z.number().int().describe("Iterations.") }),
      execute: async (input) => {
        let x = 0;
        for (let i = 0; i < input.n; i++) x = (x * 31 + i) % 1000003;
        return String(x + padding());
      },
    }),
    defineTool({
      name: "caps",
      description: "Makes n capability calls of one kind.",
      category: "bench",
      annotations: ro,
      requiredSecrets: [{ key: "bench_key", type: "text", optional: true }],
      parameters: z.object({
        kind: z.enum(["secrets", "state", "knowledge"]).describe("Which capability."),
        n: z.number().int().describe("How many calls."),
      }),
      execute: async (input, ctx) => {
        for (let i = 0; i < input.n; i++) {
          if (input.kind === "secrets") await ctx.secrets.get("bench_key");
          else if (input.kind === "state") await ctx.state.get("k");
          else await ctx.knowledge?.search("benchmark", { limit: 5 });
        }
        return "ok";
      },
    }),
    defineTool({
      name: "runaway",
      description: "Never returns: a synchronous infinite loop.",
      category: "bench",
      annotations: ro,
      parameters: z.object({ x: z.number().nullable().describe("Unused.") }),
      execute: async () => {
        for (;;) {}
      },
    }),
    defineTool({
      name: "stall",
      description: "Never returns: awaits a promise that never settles.",
      category: "bench",
      annotations: ro,
      parameters: z.object({ x: z.number().nullable().describe("Unused.") }),
      execute: async () => {
        await new Promise(() => {});
        return "unreachable";
      },
    }),
  ],
});
`;

/** Generated functions, kept alive by \`padding()\`, so the bundle really has that much code to compile. */
function padSource(kb: number): string {
  const fns: string[] = [];
  let size = 0;
  for (let i = 0; size < kb * 1024; i++) {
    const fn = `function pad${i}(a) { let s = a | 0; for (let j = 0; j < ${i % 7}; j++) { s = (s * ${31 + (i % 13)} + j) ^ ${i}; } return s === ${-1 - i} ? "pad${i}-" + a : 0; }\n`;
    fns.push(fn);
    size += fn.length;
  }
  const calls = fns.map((_, i) => `pad${i}`);
  return `${fns.join("")}\nconst all = [${calls.join(",")}];\nexport function padding() { let t = 0; for (const f of all) t += typeof f(1) === "string" ? 1 : 0; return t; }\n`;
}

export interface BenchPlugin {
  dir: string;
  manifest: PluginManifest;
  tarball: Buffer;
  tarballPath: string;
  bundlePath: string;
  bundleSize: number;
}

/**
 * Builds and packs the bench plugin as `<namespace>@<version>`, padded with about `padKb` KB of code;
 * `source` replaces the bench tools with a plugin of the row's own (its `__NS__` and `__VERSION__`
 * filled in the same way; `./pad.ts` is there to import).
 */
export async function buildBenchPlugin(
  namespace: string,
  version: string,
  padKb: number,
  source = SOURCE,
): Promise<BenchPlugin> {
  const dir = join(WORK, `${namespace}-${version}-${padKb}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: `@bench/${namespace}`, version, type: "module", private: true }),
  );
  writeFileSync(
    join(dir, "src", "index.ts"),
    source.replace("__NS__", namespace).replace("__VERSION__", version),
  );
  writeFileSync(
    join(dir, "src", "pad.ts"),
    padKb > 0 ? padSource(padKb) : "export function padding() { return 0; }\n",
  );
  const built = await buildPlugin(dir);
  const packed = await packPlugin(dir, dir);
  return {
    dir,
    manifest: built.manifest,
    tarball: readFileSync(packed.file),
    tarballPath: packed.file,
    bundlePath: join(built.outDir, "index.js"),
    bundleSize: built.bundleSize,
  };
}
