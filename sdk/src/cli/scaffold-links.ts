// Where a scaffolded plugin project gets the SDK from, offline: the Airlock installation whose
// `airlock-plugin init` wrote it. `@airlock/sdk` (and `@airlock/host`, the peer that
// `@airlock/sdk/testing` and `airlock-plugin dev` load) become `file:` dependencies on that
// installation's folders, which npm links without a registry; Node then runs their TypeScript
// from the real path (not under node_modules, so type stripping applies) and resolves their own
// imports from that installation. zod, vitest, typescript, @types/node and the `node` runtime are pinned to the versions
// that installation uses, so `npm install` takes them from the npm cache or the npm registry.
// Contract: `scaffoldLinks()` never throws; what it cannot find is left out (and init says so).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface ScaffoldLinks {
  /** Absolute folder of this SDK (its package.json). */
  sdk: string;
  /** Absolute folder of @airlock/host beside it, when there is one. */
  host?: string;
  /** Versions of zod, vitest, typescript and @types/node that this installation uses. */
  versions: Record<string, string>;
  /** The Node version running init (24.x), pinned as the project's `node` dev dependency. */
  node: string;
}

const PINNED = ["zod", "vitest", "typescript", "@types/node"] as const;
const SDK_DIR = fileURLToPath(new URL("../..", import.meta.url));

function versionOf(from: string, name: string): string | undefined {
  try {
    const require = createRequire(join(from, "package.json"));
    const path = require.resolve(`${name}/package.json`);
    return (JSON.parse(readFileSync(path, "utf8")) as { version?: string }).version;
  } catch (error) {
    // Not installed next to this SDK: the scaffold falls back to a range.
    if ((error as { code?: string }).code === "MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}

function hostDir(): string | undefined {
  try {
    const entry = fileURLToPath(import.meta.resolve("@airlock/host/index.ts"));
    const dir = dirname(dirname(entry));
    return existsSync(join(dir, "package.json")) ? dir : undefined;
  } catch (error) {
    if (error instanceof Error) return undefined;
    throw error;
  }
}

export function scaffoldLinks(): ScaffoldLinks {
  const host = hostDir();
  const versions: Record<string, string> = {};
  for (const name of PINNED) {
    const version = versionOf(SDK_DIR, name);
    if (version !== undefined) versions[name] = version;
  }
  return {
    sdk: SDK_DIR.replace(/\/$/, ""),
    ...(host === undefined ? {} : { host }),
    versions,
    node: process.versions.node,
  };
}
