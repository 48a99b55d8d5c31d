// Finds the first-party plugins (plugins/<name>/ with a package.json named
// `@airlock-plugins/<name>`) and fingerprints their sources, so a built tarball is reused
// until a source file, the package.json or the SDK version changes.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { SDK_VERSION } from "@airlock/sdk/manifest";

export const FIRST_PARTY_DIR = fileURLToPath(new URL("../../../../../plugins/", import.meta.url));

export interface FirstPartyPlugin {
  /** The plugin folder name (= its namespace for first-party plugins). */
  name: string;
  dir: string;
  packageName: string;
  version: string;
}

export async function listFirstPartyPlugins(root = FIRST_PARTY_DIR): Promise<FirstPartyPlugin[]> {
  const out: FirstPartyPlugin[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(root, entry.name);
    let pkg: { name?: unknown; version?: unknown };
    try {
      pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as typeof pkg;
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") continue;
      throw error;
    }
    if (pkg.name !== `@airlock-plugins/${entry.name}` || typeof pkg.version !== "string") continue;
    out.push({ name: entry.name, dir, packageName: pkg.name, version: pkg.version });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(full)));
    else if (!entry.name.endsWith(".test.ts")) out.push(full);
  }
  return out.sort();
}

/** sha256 over the SDK version and every non-test source file (path and bytes). */
export async function sourceHash(plugin: FirstPartyPlugin): Promise<string> {
  const hash = createHash("sha256").update(`sdk ${SDK_VERSION}\n`);
  for (const file of await sourceFiles(plugin.dir)) {
    hash.update(`${relative(plugin.dir, file)}\n`);
    hash.update(await readFile(file));
  }
  return hash.digest("hex").slice(0, 32);
}
