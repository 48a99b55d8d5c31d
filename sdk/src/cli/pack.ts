// `airlock-plugin pack [dir] [--out <dir>]`.
import { relative, resolve } from "node:path";
import { packPlugin } from "../build/pack.ts";
import { parse, pluginDirOf, reportError, stringOption } from "./args.ts";
import { EXIT, type PluginCliCommand } from "./types.ts";

export const packCommand: PluginCliCommand = {
  name: "pack",
  summary: "write <namespace>-<version>.tgz from dist/ and print its sha512 integrity",
  help: `Usage: airlock-plugin pack [dir] [--out <dir>]

Packs the built plugin at [dir] (default: the current directory) into
<namespace>-<version>.tgz, an npm-style tarball holding exactly package/package.json,
package/airlock.json and package/index.js. The tarball is reproducible (fixed mtime,
mode 0644, owner 0): the same dist/ always gives the same bytes. Prints the file, its
size and its integrity (sha512-<base64>).

Run \`airlock-plugin build\` first: pack refuses a missing dist/, or one whose bundle does
not match its manifest (AIRLOCK_SDK_NOT_BUILT, exit 1).

Options:
  --out <dir>  where to write the tarball (default: [dir])
  -h, --help   show this help

Example:
  airlock-plugin build && airlock-plugin pack
`,
  async run(args, io) {
    try {
      const parsed = parse(args, { out: { type: "string" } }, 1);
      if (parsed.help) {
        io.stdout(this.help);
        return EXIT.OK;
      }
      const dir = pluginDirOf(parsed, io);
      const out = stringOption(parsed, "out");
      const result = await packPlugin(dir, out === undefined ? dir : resolve(io.cwd, out));
      io.stdout(`packed ${relative(io.cwd, result.file) || result.file} (${result.size} bytes)\n`);
      io.stdout(`integrity ${result.integrity}\n`);
      return EXIT.OK;
    } catch (err) {
      return reportError(err, io);
    }
  },
};
