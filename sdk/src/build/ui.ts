// The build's half of plugin UIs (MCP Apps, apps-format.ts): each declared UI's HTML made into
// one self-contained file, and the manifest's `ui` entries with their sha512.
// What is inlined: `<script src="./x.ts|js">` becomes an inline script bundled by esbuild (for
// the browser, its imports resolved from the plugin folder, so an author's npm packages are
// bundled in); `<link rel="stylesheet" href="./x.css">` becomes an inline style bundled by
// esbuild. Any other reference to a local file (an image, a script that is not a module of the
// plugin) is refused (AIRLOCK_SDK_BUILD_UI_ASSET): the UI is served as one document, so such a
// file would never load. Remote URLs are left as written; the client's CSP, built from the UI's
// declared `csp`, decides whether they load.
// Invariants: nothing is written here; the same sources give the same bytes; the manifest-level
// checks (CSP origins within egress, tools naming declared UIs) run before any file is read.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { type BuildFailure, build } from "esbuild";
import { MAX_UI_BYTES, type UiDeclaration, type UiManifest, uiFileOf, uiProblems } from "../apps-format.ts";
import { sdkError } from "../error-codes.ts";
import type { EgressRule } from "../manifest.ts";
import { integrityOf } from "../signing.ts";
import { fallbackNodePaths } from "./bundle.ts";

export interface BuiltUi {
  manifest: UiManifest;
  bytes: Uint8Array;
}

const SCRIPT = /<script\b([^>]*)\bsrc\s*=\s*["']([^"']+)["']([^>]*)>\s*<\/script\s*>/gi;
const STYLESHEET = /<link\b[^>]*\brel\s*=\s*["']stylesheet["'][^>]*>/gi;
const HREF = /\bhref\s*=\s*["']([^"']+)["']/i;
const LOCAL_REF = /\b(?:src|href)\s*=\s*["'](?!(?:https?:|wss?:|data:|#|mailto:))([^"']+)["']/i;

const isRemote = (ref: string): boolean => /^(https?:)?\/\//i.test(ref) || ref.startsWith("data:");

function assetError(ui: UiDeclaration, message: string, cause?: unknown): never {
  throw sdkError("AIRLOCK_SDK_BUILD_UI_ASSET", `UI "${ui.name}" (${ui.file}): ${message}`, {
    details: { ui: ui.name },
    ...(cause === undefined ? {} : { cause }),
  });
}

async function bundleAsset(
  pluginDir: string,
  ui: UiDeclaration,
  file: string,
  kind: "js" | "css",
): Promise<string> {
  if (!existsSync(file)) assetError(ui, `${relative(pluginDir, file)} does not exist`);
  try {
    const result = await build({
      entryPoints: [file],
      bundle: true,
      write: false,
      logLevel: "silent",
      absWorkingDir: pluginDir,
      // as the plugin's own bundle: the plugin's node_modules first, else the SDK's (so
      // `@airlock/sdk/apps` resolves for a plugin made outside any project)
      nodePaths: fallbackNodePaths(),
      ...(kind === "js" ? { format: "iife" as const, target: "es2022" } : {}),
      platform: "browser",
      minify: true,
      legalComments: "none",
      charset: "utf8",
    });
    const text = new TextDecoder().decode(result.outputFiles?.[0]?.contents ?? new Uint8Array());
    // an inline script or style ends at the first `</script` / `</style`, whatever JS thinks of it
    return kind === "js"
      ? text.replace(/<\/script/gi, "<\\/script")
      : text.replace(/<\/style/gi, "<\\/style");
  } catch (err) {
    const errors = (err as Partial<BuildFailure>).errors;
    const detail = Array.isArray(errors) ? errors.map((e) => e.text).join("; ") : String(err);
    return assetError(ui, `${relative(pluginDir, file)} does not bundle: ${detail}`, err);
  }
}

/** The UI's HTML with its local scripts and stylesheets inlined; refuses any other local reference. */
async function selfContained(pluginDir: string, ui: UiDeclaration, source: string): Promise<string> {
  const base = dirname(resolve(pluginDir, ui.file));
  const parts: Array<{ at: number; end: number; text: Promise<string> }> = [];
  for (const m of source.matchAll(SCRIPT)) {
    const ref = m[2] as string;
    if (isRemote(ref)) continue;
    const attrs = `${m[1] ?? ""}${m[3] ?? ""}`.replace(/\s+/g, " ").trimEnd();
    const module = /\btype\s*=\s*["']module["']/i.test(attrs);
    const text = bundleAsset(pluginDir, ui, resolve(base, ref), "js").then(
      (code) => `<script${module ? ' type="module"' : ""}>${code}</script>`,
    );
    parts.push({ at: m.index, end: m.index + m[0].length, text });
  }
  for (const m of source.matchAll(STYLESHEET)) {
    const ref = HREF.exec(m[0])?.[1];
    if (ref === undefined || isRemote(ref)) continue;
    const text = bundleAsset(pluginDir, ui, resolve(base, ref), "css").then((css) => `<style>${css}</style>`);
    parts.push({ at: m.index, end: m.index + m[0].length, text });
  }
  parts.sort((a, b) => a.at - b.at);
  let out = "";
  let at = 0;
  for (const part of parts) {
    const rest = source.slice(at, part.at);
    const stray = LOCAL_REF.exec(rest);
    if (stray !== null) assetError(ui, `references the local file "${stray[1]}", which cannot be inlined`);
    out += rest + (await part.text);
    at = part.end;
  }
  const tail = source.slice(at);
  const stray = LOCAL_REF.exec(tail);
  if (stray !== null) assetError(ui, `references the local file "${stray[1]}", which cannot be inlined`);
  return out + tail;
}

/**
 * Builds every declared UI: checks the declarations against the tools and egress
 * (AIRLOCK_SDK_BUILD_UI_CSP / _UNKNOWN), reads each file (AIRLOCK_SDK_BUILD_UI_MISSING), inlines
 * its assets (AIRLOCK_SDK_BUILD_UI_ASSET) and hashes the result.
 */
export async function buildUis(
  pluginDir: string,
  declared: readonly UiDeclaration[],
  plugin: { egress: readonly EgressRule[]; tools: ReadonlyArray<{ name: string; ui?: string }> },
): Promise<BuiltUi[]> {
  const problem = uiProblems({ ui: declared, egress: plugin.egress, tools: plugin.tools })[0];
  if (problem !== undefined) {
    const code = problem.kind === "csp" ? "AIRLOCK_SDK_BUILD_UI_CSP" : "AIRLOCK_SDK_BUILD_UI_UNKNOWN";
    throw sdkError(code, `definePlugin ${problem.path.replace("$.", "")}: ${problem.message}`, {
      details: { path: problem.path },
    });
  }
  const out: BuiltUi[] = [];
  for (const ui of declared) {
    const file = resolve(pluginDir, ui.file);
    const inside = relative(resolve(pluginDir), file);
    if (inside.startsWith("..") || !existsSync(file)) {
      throw sdkError(
        "AIRLOCK_SDK_BUILD_UI_MISSING",
        `UI "${ui.name}": ${ui.file} is not a file in the plugin folder ${pluginDir}`,
        { details: { ui: ui.name, file: ui.file } },
      );
    }
    const html = await selfContained(pluginDir, ui, await readFile(file, "utf8"));
    const bytes = new TextEncoder().encode(html);
    if (bytes.byteLength > MAX_UI_BYTES)
      assetError(ui, `the built file is ${bytes.byteLength} bytes; the cap is ${MAX_UI_BYTES}`);
    const manifest: UiManifest = {
      name: ui.name,
      file: uiFileOf(ui.name),
      integrity: integrityOf(bytes),
      size: bytes.byteLength,
    };
    if (ui.title !== undefined) manifest.title = ui.title;
    if (ui.description !== undefined) manifest.description = ui.description;
    if (ui.csp !== undefined) manifest.csp = structuredClone(ui.csp);
    if (ui.prefersBorder !== undefined) manifest.prefersBorder = ui.prefersBorder;
    out.push({ manifest, bytes });
  }
  return out;
}
