// `airlock-plugin dev --watch`: rebuilds the plugin when a source file is saved and hands the new
// package to the running dev host, which installs it as the next dev version and serves it.
// Contract: changes within `DEBOUNCE_MS` make one rebuild; rebuilds never overlap (a save during
// a rebuild starts one more after it); a rebuild N ≥ 1 is packed as `<version>+dev.N` (build
// metadata: the same precedence, so the host's install keeps every grant and limit it applies
// in production, and each reload is a new sandbox key); a build or install that fails is
// printed and changes nothing — the last good version stays served.
// Ignored: dist/, node_modules/, keys/, dot-files and folders, packed .tgz files.
import { type FSWatcher, watch } from "node:fs";
import { buildPlugin } from "../build/build-plugin.ts";
import { readDist, tarballOf } from "../build/pack.ts";
import { hasCode } from "../errors.ts";
import { MANIFEST_FILE } from "../manifest.ts";

const DEBOUNCE_MS = 150;
const IGNORED = /(^|[\\/])(dist|node_modules|keys)([\\/]|$)|(^|[\\/])\.|\.tgz$/;

export interface DevPackage {
  tarball: Uint8Array;
  source: string;
}

export interface DevWatchOptions {
  dir: string;
  /** Installs and serves a rebuilt package; resolves to what is served (e.g. `hello@0.1.0+dev.1`). */
  reload: (pkg: DevPackage) => Promise<string>;
  log: (line: string) => void;
}

/** Builds `dir` and packs it with its version given `+dev.<n>` build metadata. */
export async function packDevBuild(dir: string, n: number): Promise<DevPackage> {
  await buildPlugin(dir);
  const { files } = await readDist(dir);
  for (const name of [MANIFEST_FILE, "package.json"]) {
    const json = JSON.parse(files.get(name)?.toString("utf8") ?? "{}") as { version?: string };
    if (typeof json.version === "string") json.version = `${json.version.split("+")[0]}+dev.${n}`;
    files.set(name, Buffer.from(`${JSON.stringify(json, null, 2)}\n`));
  }
  return { tarball: new Uint8Array(await tarballOf(files)), source: `file:${dir}` };
}

/** Watches `dir` until the returned function is called. */
export function watchPlugin(options: DevWatchOptions): () => void {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  let builds = 0;
  let stopped = false;

  const rebuild = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const n = ++builds;
        try {
          const served = await options.reload(await packDevBuild(options.dir, n));
          options.log(`reloaded: serving ${served}`);
        } catch (error) {
          const code = hasCode(error) ? error.code : "error";
          const message = error instanceof Error ? error.message : String(error);
          options.log(`rebuild failed (${code}): ${message}`);
          options.log("still serving the last good version");
        }
      } while (again && !stopped);
    } finally {
      running = false;
    }
  };

  const watcher: FSWatcher = watch(options.dir, { recursive: true }, (_event, name) => {
    if (stopped || (name !== null && IGNORED.test(String(name)))) return;
    clearTimeout(timer);
    timer = setTimeout(() => void rebuild(), DEBOUNCE_MS);
  });
  watcher.on("error", (error) => options.log(`watching stopped: ${error.message}`));
  options.log(`watching ${options.dir} for changes`);
  return () => {
    stopped = true;
    clearTimeout(timer);
    watcher.close();
  };
}
