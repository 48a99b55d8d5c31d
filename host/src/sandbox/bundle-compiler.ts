// Compiles a plugin's bundle into an isolate with the V8 code cache: the cache is read once per
// PluginRuntime (from SandboxPlugin.codeCachePath when given), produced on the first compile that
// had none, kept in memory for the isolate's replacements and written back to the path.
// Invariants: a rejected or unreadable cache is a miss, never a failed load (reported through
// `onWarning`); the cache file format is code-cache.ts's (integrity + V8 version header, HMAC
// under SandboxPlugin.codeCacheKey). A file whose MAC does not verify is discarded and never
// handed to V8; without a key no cache file is read or written (memory only).
import ivm from "isolated-vm";
import { discardCodeCache, readCodeCache, writeCodeCache } from "./code-cache.ts";
import { messageOf, toArrayBuffer } from "./generation.ts";
import type { SandboxPlugin } from "./types.ts";

type Compiled = ivm.Script & ivm.CachedDataResult & { cachedDataRejected?: boolean };

export class BundleCompiler {
  readonly #plugin: SandboxPlugin;
  readonly #onWarning: (message: string) => void;
  #cachedData: Buffer | undefined;
  readonly #key: Buffer | undefined;

  constructor(plugin: SandboxPlugin, onWarning: (message: string) => void) {
    this.#plugin = plugin;
    this.#onWarning = onWarning;
    const key = plugin.codeCacheKey === undefined ? undefined : Buffer.from(plugin.codeCacheKey, "base64");
    this.#key = key !== undefined && key.length >= 32 ? key : undefined;
    if (key !== undefined && this.#key === undefined)
      onWarning(`code cache of ${plugin.key} disabled: its key is shorter than 32 bytes`);
    const path = plugin.codeCachePath;
    if (path === undefined || this.#key === undefined) return;
    try {
      const read = readCodeCache(path, plugin.manifest.bundle.integrity, this.#key);
      if ("bytes" in read) this.#cachedData = read.bytes;
      else if ("rejected" in read) {
        discardCodeCache(path);
        onWarning(`code cache of ${plugin.key} failed authentication and was discarded`);
      }
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
      if (codeCachePath !== undefined && this.#key !== undefined) {
        try {
          writeCodeCache(codeCachePath, manifest.bundle.integrity, this.#cachedData, this.#key);
        } catch (error) {
          this.#onWarning(`code cache of ${key} not written: ${messageOf(error)}`);
        }
      }
    }
    return script;
  }
}
