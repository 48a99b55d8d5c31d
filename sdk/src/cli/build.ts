// `airlock-plugin build [dir] [--minify]`.
import { relative } from "node:path";
import { buildPlugin } from "../build/build-plugin.ts";
import { parse, pluginDirOf, reportError } from "./args.ts";
import { EXIT, type PluginCliCommand } from "./types.ts";

export const buildCommand: PluginCliCommand = {
  name: "build",
  summary: "bundle the plugin and generate dist/airlock.json from the code",
  help: `Usage: airlock-plugin build [dir] [--minify]

Bundles the plugin at [dir] (default: the current directory) into one self-contained
script for the sandbox and writes, only when everything below passes:
  dist/index.js      the bundle (classic script, no imports, no Node built-ins)
  dist/airlock.json  the manifest, generated from the code
  dist/package.json  the package.json shipped in the tarball

The entry is package.json "airlock.entry", else src/index.ts; it must
\`export default definePlugin({...})\`. The build fails (exit 1) when the code imports a
Node built-in or an unresolvable module (AIRLOCK_SDK_BUILD_FORBIDDEN_IMPORT), when an
input example does not match its tool's parameters (AIRLOCK_SDK_EXAMPLE_INVALID), when
the manifest is invalid (AIRLOCK_MANIFEST_INVALID) or on any strict-mode lint violation
(AIRLOCK_SDK_LINT_FAILED, each with its JSON path and fix).

Options:
  --minify     minify dist/index.js (default: off, for readable stack traces)
  -h, --help   show this help

Example:
  airlock-plugin build ./my-plugin --minify
`,
  async run(args, io) {
    try {
      const parsed = parse(args, { minify: { type: "boolean" } }, 1);
      if (parsed.help) {
        io.stdout(this.help);
        return EXIT.OK;
      }
      const dir = pluginDirOf(parsed, io);
      const { manifest, outDir, bundleSize } = await buildPlugin(dir, {
        minify: parsed.values.minify === true,
      });
      const n = manifest.tools.length;
      io.stdout(
        `built ${manifest.namespace}@${manifest.version}: ${n} tool${n === 1 ? "" : "s"} (${manifest.tools.map((t) => t.name).join(", ")}), bundle ${bundleSize} bytes → ${relative(io.cwd, outDir) || "."}\n`,
      );
      return EXIT.OK;
    } catch (err) {
      return reportError(err, io);
    }
  },
};
