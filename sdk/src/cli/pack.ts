// `airlock-plugin pack [dir] [--out <dir>] [--key <file>]`: the tarball, and with a key its
// `.sig` sidecar (sign.ts).
import { relative, resolve } from "node:path";
import { packPlugin } from "../build/pack.ts";
import { parse, pluginDirOf, reportError, stringOption } from "./args.ts";
import { keyOption, writeSignature } from "./sign.ts";
import { EXIT, type PluginCliCommand } from "./types.ts";

export const packCommand: PluginCliCommand = {
  name: "pack",
  summary: "write <namespace>-<version>.tgz from dist/ and print its sha512 integrity",
  help: `Usage: airlock-plugin pack [dir] [--out <dir>] [--key <file>]

Packs the built plugin at [dir] (default: the current directory) into
<namespace>-<version>.tgz, an npm-style tarball holding exactly package/package.json,
package/airlock.json and package/index.js. The tarball is reproducible (fixed mtime,
mode 0644, owner 0): the same dist/ always gives the same bytes. Prints the file, its
size and its integrity (sha512-<base64>). With --key it also writes <file>.tgz.sig, the
signature \`airlock install ./<file>.tgz --trust-key <name>.pub\` verifies.

Run \`airlock-plugin build\` first: pack refuses a missing dist/, or one whose bundle does
not match its manifest (AIRLOCK_SDK_NOT_BUILT, exit 1).

Options:
  --out <dir>  where to write the tarball (default: [dir])
  --key <file> sign it: PKCS#8 PEM private key from \`keygen\` (or env AIRLOCK_SIGNING_KEY)
  -h, --help   show this help

Example:
  airlock-plugin build && airlock-plugin pack --key ~/.airlock/acme.key
`,
  async run(args, io) {
    try {
      const parsed = parse(args, { out: { type: "string" }, key: { type: "string" } }, 1);
      if (parsed.help) {
        io.stdout(this.help);
        return EXIT.OK;
      }
      const dir = pluginDirOf(parsed, io);
      const out = stringOption(parsed, "out");
      const key = await keyOption(stringOption(parsed, "key"), io, false);
      const result = await packPlugin(dir, out === undefined ? dir : resolve(io.cwd, out));
      io.stdout(`packed ${relative(io.cwd, result.file) || result.file} (${result.size} bytes)\n`);
      io.stdout(`integrity ${result.integrity}\n`);
      if (key !== undefined) {
        const signed = await writeSignature(result.file, key);
        io.stdout(
          `signed ${relative(io.cwd, signed.file) || signed.file} (key id ${signed.signature.keyid})\n`,
        );
      }
      return EXIT.OK;
    } catch (err) {
      return reportError(err, io);
    }
  },
};
