// Compiles a plugin's bundle into an isolate with the V8 code cache: the cache is read once per
// PluginRuntime (from SandboxPlugin.codeCachePath when given), produced on the first compile that
// had none, kept in memory for the isolate's replacements and written back to the path. V8 puts in
// a cache only the functions compiled when it is made, so a compile that produced one is followed,
// once the bundle has run and served its first call (`warm`, after that call's answer), by a
// second compile in the same isolate that produces it again with what the bundle's start and that
// call compiled lazily; that cache replaces the first in memory and on disk (measured on a 657 KB bundle: the bundle's start
// 2.6 ms from the first cache, 0.96 ms from the warmed one; the first call 0.66 ms, 0.23 warm).
// The cache is kept as one ExternalCopy, the file's bytes moved into it and a produced cache kept
// as V8 gave it: no copy per compile. Each copy of a ~480 KB cache is fresh memory, and on a guest
// where a page fault costs ~19 µs that was ~118 faults, 1.5–2.5 ms of a cold start.
// Invariants: a rejected or unreadable cache is a miss, never a failed load (reported through
// `onWarning`); the cache file format is code-cache.ts's (integrity + V8 version header, GMAC
// under SandboxPlugin.codeCacheKey). A file whose MAC does not verify is discarded and never
// handed to V8; without a key no cache file is read or written (memory only).
import ivm from "isolated-vm";
import { discardCodeCache, readCodeCache, writeCodeCache } from "./code-cache.ts";
import { messageOf } from "./generation.ts";
import type { SandboxPlugin } from "./types.ts";

type Compiled = ivm.Script & ivm.CachedDataResult & { cachedDataRejected?: boolean };

export class BundleCompiler {
  readonly #plugin: SandboxPlugin;
  readonly #onWarning: (message: string) => void;
  /** The cache V8 is handed, outside any isolate: made once, used by every compile. */
  #cachedData: ivm.ExternalCopy<ArrayBuffer> | undefined;
  readonly #key: Buffer | undefined;
  /** The last compile produced the cache (none was usable): `warm` may produce a fuller one. */
  #produced = false;

  /** A compile produced the cache and `warm` has not made it again yet. */
  get warmPending(): boolean {
    return this.#produced;
  }

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
      // the read buffer owns its ArrayBuffer: moved into the copy, not copied again
      if ("bytes" in read)
        this.#cachedData = new ivm.ExternalCopy(read.bytes.buffer as ArrayBuffer, { transferOut: true });
      else if ("rejected" in read) {
        discardCodeCache(path);
        onWarning(`code cache of ${plugin.key} failed authentication and was discarded`);
      }
    } catch (error) {
      onWarning(`code cache of ${plugin.key} unreadable: ${messageOf(error)}`);
    }
  }

  /** The bundle's script name in the isolate (the same on every compile, so V8 finds it again). */
  get #filename(): string {
    return `airlock:${this.#plugin.key}/index.js`;
  }

  async compile(isolate: ivm.Isolate): Promise<ivm.Script> {
    const { code } = this.#plugin;
    const filename = this.#filename;
    if (this.#cachedData) {
      const script = (await isolate.compileScript(code, {
        filename,
        cachedData: this.#cachedData,
      })) as Compiled;
      if (script.cachedDataRejected !== true) return script;
      this.#cachedData.release();
      this.#cachedData = undefined;
    }
    const script = (await isolate.compileScript(code, { filename, produceCachedData: true })) as Compiled;
    this.#keep(script);
    this.#produced = script.cachedData !== undefined;
    return script;
  }

  /**
   * After the bundle ran in `isolate` (compiled there by `compile`) and served a call: when that
   * compile produced the cache, produces it again, now holding the functions compiled since, and
   * keeps it in place of the first. Once per produced cache; a failure keeps the first (reported
   * unless the isolate is gone, never thrown).
   */
  async warm(isolate: ivm.Isolate): Promise<void> {
    if (!this.#produced) return;
    this.#produced = false;
    try {
      // the same source and name: V8 finds the compiled script in the isolate's own cache
      const again = (await isolate.compileScript(this.#plugin.code, {
        filename: this.#filename,
        produceCachedData: true,
      })) as Compiled;
      this.#keep(again);
      again.release();
    } catch (error) {
      if (!isolate.isDisposed)
        this.#onWarning(`code cache of ${this.#plugin.key} not warmed: ${messageOf(error)}`);
    }
  }

  /** Keeps a produced cache in memory and writes it to the plugin's cache path. */
  #keep(script: Compiled): void {
    if (!script.cachedData) return;
    this.#cachedData?.release();
    this.#cachedData = script.cachedData;
    const { key, manifest, codeCachePath } = this.#plugin;
    if (codeCachePath === undefined || this.#key === undefined) return;
    try {
      const bytes = new Uint8Array(script.cachedData.copy());
      writeCodeCache(codeCachePath, manifest.bundle.integrity, bytes, this.#key);
    } catch (error) {
      this.#onWarning(`code cache of ${key} not written: ${messageOf(error)}`);
    }
  }
}
