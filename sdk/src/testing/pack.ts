// Builds and packs a plugin directory for the test harness with the SDK's own build and pack
// (the same bytes `airlock-plugin build && airlock-plugin pack` would produce), in memory.
// Invariants: a failure is AIRLOCK_SDK_TESTING_BUILD_FAILED wrapping the build's own error
// (whose code names the problem); a dist/ that another process rewrote mid-read (two suites
// building one plugin at once) is rebuilt once before giving up.
import { resolve } from "node:path";
import { buildPlugin } from "../build/build-plugin.ts";
import { readDist, tarballOf } from "../build/pack.ts";
import { AirlockError, hasCode } from "../errors.ts";
import { TESTING_ERRORS } from "./errors.ts";

export interface PackedForTest {
  tarball: Uint8Array;
  /** `file:<dir>`, recorded by the host as the install source. */
  source: string;
}

async function buildAndRead(dir: string): Promise<Uint8Array> {
  await buildPlugin(dir);
  const { files } = await readDist(dir);
  return new Uint8Array(await tarballOf(files));
}

export async function packPluginForTest(pluginDir: string): Promise<PackedForTest> {
  const dir = resolve(pluginDir);
  try {
    let tarball: Uint8Array;
    try {
      tarball = await buildAndRead(dir);
    } catch (error) {
      if (!hasCode(error, "AIRLOCK_SDK_NOT_BUILT")) throw error;
      tarball = await buildAndRead(dir);
    }
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
