// Compiles a plugin's bundle into an isolate with the V8 code cache: the cache is read once per
// PluginRuntime (from SandboxPlugin.codeCachePath when given), produced on the first compile that
// had none, kept in memory for the isolate's replacements and written back to the path.
// Invariants: a rejected or unreadable cache is a miss, never a failed load (reported through
// `onWarning`); the cache file format is code-cache.ts's (integrity + V8 version header).
import ivm from "isolated-vm";
import { readCodeCache, writeCodeCache } from "./code-cache.ts";
import { messageOf, toArrayBuffer } from "./generation.ts";
import type { SandboxPlugin } from "./types.ts";

type Compiled = ivm.Script & ivm.CachedDataResult & { cachedDataRejected?: boolean };

export class BundleCompiler {
  readonly #plugin: SandboxPlugin;
  readonly #onWarning: (message: string) => void;
  #cachedData: Buffer | undefined;

  constructor(plugin: SandboxPlugin, onWarning: (message: string) => void) {
    this.#plugin = plugin;
    this.#onWarning = onWarning;
    const path = plugin.codeCachePath;
    if (path === undefined) return;
    try {
      this.#cachedData = readCodeCache(path, plugin.manifest.bundle.integrity);
    } catch (error) {
      onWarning(`code cache of ${plugin.key} unreadable: ${messageOf(error)}`);
    }
  }

  async compile(isolate: ivm.Isolate): Promise<ivm.Script> {
    const { key, code, manifest, codeCachePath } = this.#plugin;
    const filename = `airlock:${key}/index.js`;
    if (this.#cachedData) {
      const cachedData = new ivm.ExternalCopy(toArrayBuffer(this.#cachedData));
      const script = (await isolate.compileScript(code, { filename, cachedData })) as Compiled;
      if (script.cachedDataRejected !== true) return script;
      this.#cachedData = undefined;
    }
    const script = (await isolate.compileScript(code, { filename, produceCachedData: true })) as Compiled;
    if (script.cachedData) {
      this.#cachedData = Buffer.from(script.cachedData.copy());
      if (codeCachePath !== undefined) {
        try {
          writeCodeCache(codeCachePath, manifest.bundle.integrity, this.#cachedData);
        } catch (error) {
          this.#onWarning(`code cache of ${key} not written: ${messageOf(error)}`);
        }
      }
    }
    return script;
  }
}
