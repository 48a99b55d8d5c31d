// The console's browser code, bundled by esbuild (already a dependency of the host) from
// ui/main.js with Preact and htm, once per process, on the first request for it: `airlock
// start`/`serve` and a fresh clone's tests serve what the source says, with no build step to
// forget and no file written anywhere. Invariants: the bundle imports nothing at run time (no
// CDN, works offline); a failed build is reported, not cached, so the next request retries.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const UI_DIR = new URL("./ui/", import.meta.url);

let script: Promise<string> | null = null;
let style: Promise<string> | null = null;

async function bundleScript(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("main.js", UI_DIR))],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "silent",
  });
  const out = result.outputFiles[0];
  if (out === undefined) throw new Error("esbuild produced no console bundle");
  return out.text;
}

/** The console's script (memoised; a failure is not). */
export function consoleScript(): Promise<string> {
  if (script === null) {
    script = bundleScript();
    script.catch(() => {
      script = null;
    });
  }
  return script;
}

export function consoleStyle(): Promise<string> {
  if (style === null) {
    style = readFile(new URL("console.css", UI_DIR), "utf8");
    style.catch(() => {
      style = null;
    });
  }
  return style;
}
