// What the growth rows (11–15) share: a row per point of a curve (the cost at one size of the
// work), a verdict on each curve's growth, the stores a curve runs on (SQLite, and PostgreSQL in a
// fresh schema when it answers), a real host started without the bench host's auto-approval, and
// a plugin of any number of tools built with the SDK's real build.
// Invariants: a curve's points are measured in one process on one host, smallest size first; a
// verdict compares the curve's own points; a PostgreSQL schema made here is dropped by `close`.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildPlugin, packPlugin } from "@airlock/sdk/build";
import type { PluginManifest } from "@airlock/sdk/manifest";
import { generateKeyPair, integrityOf, signIntegrity } from "@airlock/sdk/signing";
import type { HostOptions } from "../../host/src/config.ts";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { PG_URL, probePostgres } from "../../test/support/postgres.ts";
import type { Row } from "./report.ts";
import type { Summary } from "./stats.ts";

const WORK = resolve(import.meta.dirname, "..", ".work");

/** The bound a curve is held to: cost(n) ∝ 1 + log10 n, and never tighter than NOISE (a noisy 2-core guest). */
const NOISE = 1.5;

export function logBound(nMin: number, nMax: number): number {
  return Math.max(NOISE, (1 + Math.log10(nMax)) / (1 + Math.log10(nMin)));
}

/**
 * The rows of one curve: one per size, the last one judged. A row's ratio is its growth since the
 * curve's first point (what bench/charts.ts draws). `perItem`: the figure is the cost of an answer
 * that holds all n items, so its total must grow with n and its ratio is the growth of the cost
 * per item, which must not.
 */
export function curveRows(
  id: string,
  curve: { chart: string; title: string; series: string; what: string; unit: string; perItem?: boolean },
  points: ReadonlyArray<{ n: number; s: Summary; note?: string }>,
): Row[] {
  const first = points[0];
  const last = points.at(-1);
  if (first === undefined || last === undefined) return [];
  const bound = logBound(first.n, last.n);
  return points.map(({ n, s, note }) => {
    const row: Row = {
      id,
      what: `${curve.what}, n = ${n.toLocaleString("en-US")}`,
      unit: curve.unit,
      p50: s.p50,
      p90: s.p90,
      target: "–",
      curve: { chart: curve.chart, title: curve.title, series: curve.series, n },
      ...(note === undefined ? {} : { note }),
    };
    if (n === first.n || points.length < 2) return row;
    const grew = curve.perItem ? s.p50 / n / (first.s.p50 / first.n) : s.p50 / first.s.p50;
    return {
      ...row,
      baseline: {
        what: `same, n = ${first.n.toLocaleString("en-US")}${curve.perItem ? " (ratio per item)" : ""}`,
        p50: first.s.p50,
      },
      ratio: grew,
      ...(n === last.n
        ? {
            target: `≤ ${bound.toFixed(1)}× n = ${first.n.toLocaleString("en-US")}${curve.perItem ? " per item" : ""}`,
            met: grew <= bound,
          }
        : {}),
    };
  });
}

export interface StoreUnderTest {
  name: "SQLite" | "PostgreSQL";
  store?: { kind: "postgres"; url: string; schema: string };
}

/** SQLite always; PostgreSQL (AIRLOCK_TEST_PG) in a fresh schema when it answers. */
export async function storesUnderTest(): Promise<StoreUnderTest[]> {
  const stores: StoreUnderTest[] = [{ name: "SQLite" }];
  if ((await probePostgres()).ok) {
    stores.push({
      name: "PostgreSQL",
      store: { kind: "postgres", url: PG_URL, schema: freshSchemaName("bench_growth") },
    });
  }
  return stores;
}

export interface GrowthHost {
  host: AirlockHost;
  dataDir: string;
  close(): Promise<void>;
}

/** A real host (workers sandbox) with `plugins` installed signed; approvals wait for an operator. */
export async function startGrowthHost(
  plugins: readonly BuiltPlugin[],
  options: { store?: StoreUnderTest["store"]; autoApprove?: boolean; dataDir?: string } = {},
): Promise<GrowthHost> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "airlock-bench-growth-"));
  const keys = generateKeyPair();
  const config: HostOptions = {
    dataDir,
    sandbox: { mode: "workers" },
    trust: { keys: [keys.publicKeyPem] },
    autoApprove: options.autoApprove ?? false,
    ...(options.store === undefined ? {} : { store: options.store }),
  };
  const host = await createHost(config);
  const close = async () => {
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (options.store !== undefined) await dropSchemas(options.store.url, [options.store.schema]);
  };
  try {
    for (const plugin of plugins) {
      const signature = signIntegrity(integrityOf(plugin.tarball), keys.privateKeyPem);
      await host.plugins.installTarball(plugin.tarball, `file:${plugin.tarballPath}`, {
        signatures: [signature],
      });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { host, dataDir, close };
}

export interface BuiltPlugin {
  manifest: PluginManifest;
  tarball: Buffer;
  tarballPath: string;
  /** The tools' canonical ids, `<namespace>:<tool>`. */
  ids: string[];
}

/**
 * A plugin of `count` tools (`t0`…), each echoing its text, built and packed by the SDK. Read-only
 * unless `readOnly` is false (then every call waits for an approval).
 */
export async function buildToolsPlugin(
  namespace: string,
  count: number,
  options: { readOnly: boolean },
): Promise<BuiltPlugin> {
  const dir = join(WORK, `${namespace}-${count}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: `@bench/${namespace}`, version: "1.0.0", type: "module", private: true }),
  );
  writeFileSync(
    join(dir, "src", "index.ts"),
    `import { definePlugin, defineTool } from "@airlock/sdk";
import { z } from "zod";

export default definePlugin({
  namespace: "${namespace}",
  version: "1.0.0",
  engine: ">=0.1.0",
  description: "Growth benchmark tools.",
  tools: Array.from({ length: ${count} }, (_, i) =>
    defineTool({
      name: \`t\${i}\`,
      description: \`Growth tool number \${i}: returns its text, so a listing has a realistic entry.\`,
      category: "bench",
      annotations: { readOnlyHint: ${options.readOnly} },
      parameters: z.object({
        text: z.string().describe("Text to return."),
        times: z.number().int().nullable().describe("How many times (unused)."),
      }),
      execute: async (input) => input.text,
    }),
  ),
});
`,
  );
  const built = await buildPlugin(dir);
  const packed = await packPlugin(dir, dir);
  return {
    manifest: built.manifest,
    tarball: readFileSync(packed.file),
    tarballPath: packed.file,
    ids: built.manifest.tools.map((t) => `${namespace}:${t.name}`),
  };
}
