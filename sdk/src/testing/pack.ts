// Builds and packs a plugin directory for the test harness with the SDK's own build and pack
// (the same bytes `airlock-plugin build && airlock-plugin pack` would produce), in memory.
// Within one process a build is reused while the plugin's source files are unchanged (a hash of
// their paths and bytes), so a suite of many testTool calls builds each plugin once.
// Invariants: a failure is AIRLOCK_SDK_TESTING_BUILD_FAILED wrapping the build's own error
// (whose code names the problem); a dist/ that another process rewrote mid-read (two suites
// building one plugin at once) is rebuilt once before giving up.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { buildPlugin } from "../build/build-plugin.ts";
import { readDist, tarballOf } from "../build/pack.ts";
import { AirlockError, hasCode } from "../errors.ts";
import { TESTING_ERRORS } from "./errors.ts";

export interface PackedForTest {
  tarball: Uint8Array;
  /** `file:<dir>`, recorded by the host as the install source. */
  source: string;
}

const built = new Map<string, { hash: string; tarball: Uint8Array }>();

async function sourceHash(dir: string): Promise<string> {
  const hash = createHash("sha256");
  const walk = async (at: string): Promise<void> => {
    const entries = (await readdir(at, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (["node_modules", "dist"].includes(entry.name) || entry.name.startsWith(".")) continue;
      const full = join(at, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (!/\.(tgz|test\.ts)$/.test(entry.name))
        hash.update(`${relative(dir, full)}\0`).update(await readFile(full));
    }
  };
  await walk(dir);
  return hash.digest("hex");
}

async function buildAndRead(dir: string): Promise<Uint8Array> {
  await buildPlugin(dir);
  const { files } = await readDist(dir);
  return new Uint8Array(await tarballOf(files));
}

export async function packPluginForTest(pluginDir: string): Promise<PackedForTest> {
  const dir = resolve(pluginDir);
  try {
    const hash = await sourceHash(dir);
    const cached = built.get(dir);
    if (cached?.hash === hash) return { tarball: cached.tarball, source: `file:${dir}` };
    let tarball: Uint8Array;
    try {
      tarball = await buildAndRead(dir);
    } catch (error) {
      if (!hasCode(error, "AIRLOCK_SDK_NOT_BUILT")) throw error;
      tarball = await buildAndRead(dir);
    }
    built.set(dir, { hash, tarball });
    return { tarball, source: `file:${dir}` };
  } catch (cause) {
    const code = hasCode(cause) ? cause.code : "unknown";
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new AirlockError(
      "AIRLOCK_SDK_TESTING_BUILD_FAILED",
      `could not build ${dir} (${code}): ${message}`,
      {
        status: TESTING_ERRORS.AIRLOCK_SDK_TESTING_BUILD_FAILED.status,
        cause,
      },
    );
  }
}
