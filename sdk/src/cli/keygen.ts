// `airlock-plugin keygen [--out <dir>] [--name <n>] [--force]`: an ed25519 signing key pair.
// Invariants: the private key file is written with mode 0600; existing files are never
// overwritten without --force.
import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { sdkError } from "../error-codes.ts";
import { generateKeyPair, keyIdOf } from "../signing.ts";
import { parse, reportError, stringOption } from "./args.ts";
import { EXIT, type PluginCliCommand } from "./types.ts";

export const keygenCommand: PluginCliCommand = {
  name: "keygen",
  summary: "create an ed25519 signing key pair for publish, and print its key id",
  help: `Usage: airlock-plugin keygen [--out <dir>] [--name <n>] [--force]

Writes <dir>/<n>.key (PKCS#8 PEM private key, mode 0600: keep it secret) and
<dir>/<n>.pub (SPKI PEM public key: give it to registries and hosts that should trust
your signatures), then prints the key id, SHA256:<base64 of sha256(SPKI DER)>.
\`publish --key <dir>/<n>.key\` signs the tarball's integrity with it.

Options:
  --out <dir>   folder to write into (default: the current directory; created if missing)
  --name <n>    file name stem (default: airlock-signing)
  --force       overwrite existing <n>.key / <n>.pub (default: refuse, exit 1)
  -h, --help    show this help

Example:
  airlock-plugin keygen --out ~/.airlock --name acme
`,
  async run(args, io) {
    try {
      const parsed = parse(
        args,
        { out: { type: "string" }, name: { type: "string" }, force: { type: "boolean" } },
        0,
      );
      if (parsed.help) {
        io.stdout(this.help);
        return EXIT.OK;
      }
      const dir = resolve(io.cwd, stringOption(parsed, "out") ?? ".");
      const name = stringOption(parsed, "name") ?? "airlock-signing";
      if (!/^[A-Za-z0-9._-]+$/.test(name))
        throw sdkError("AIRLOCK_SDK_USAGE", `--name "${name}" must be a plain file name`);
      const keyFile = join(dir, `${name}.key`);
      const pubFile = join(dir, `${name}.pub`);
      if (parsed.values.force !== true) {
        for (const file of [keyFile, pubFile]) {
          if (existsSync(file))
            throw sdkError("AIRLOCK_SDK_USAGE", `${file} exists; pass --force to overwrite it`);
        }
      }
      const pair = generateKeyPair();
      await mkdir(dir, { recursive: true });
      await writeFile(keyFile, pair.privateKeyPem, { mode: 0o600 });
      await chmod(keyFile, 0o600);
      await writeFile(pubFile, pair.publicKeyPem, { mode: 0o644 });
      io.stdout(`private key ${relative(io.cwd, keyFile) || keyFile} (mode 0600)\n`);
      io.stdout(`public key  ${relative(io.cwd, pubFile) || pubFile}\n`);
      io.stdout(`key id      ${keyIdOf(pair.publicKeyPem)}\n`);
      return EXIT.OK;
    } catch (err) {
      return reportError(err, io);
    }
  },
};
