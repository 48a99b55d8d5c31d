// `airlock-plugin sign <file.tgz> --key <private key>`, and the sidecar `pack --key` writes: the
// `<file>.tgz.sig` that `airlock install ./file.tgz --trust-key publisher.pub` verifies
// (docs/install.md). Contract: the sidecar is JSON {"keyid","sig"}: the ed25519 signature of the
// tarball's sha512 integrity string, as a registry's dist.signatures carries it.
// Invariants: the key is read from a file (or AIRLOCK_SIGNING_KEY); a file that is not a plugin
// tarball is still signed byte for byte (the installer checks its contents).
import { readFile, writeFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { sdkError } from "../error-codes.ts";
import { type IntegritySignature, integrityOf, signIntegrity } from "../signing.ts";
import { parse, reportError, stringOption } from "./args.ts";
import { signingKey } from "./publish.ts";
import { type CliIO, EXIT, type PluginCliCommand } from "./types.ts";

/** Writes `<tarball>.sig` signed by `privateKeyPem`; answers the signature and the sidecar's path. */
export async function writeSignature(
  tarball: string,
  privateKeyPem: string,
): Promise<{ signature: IntegritySignature; file: string }> {
  const bytes = await readFile(tarball);
  const signature = signIntegrity(integrityOf(bytes), privateKeyPem);
  const file = `${tarball}.sig`;
  await writeFile(file, `${JSON.stringify(signature)}\n`);
  return { signature, file };
}

/** The --key of pack and sign (else AIRLOCK_SIGNING_KEY), required when `required`. */
export async function keyOption(
  value: string | undefined,
  io: CliIO,
  required: boolean,
): Promise<string | undefined> {
  const key = await signingKey(value ?? io.env.AIRLOCK_SIGNING_KEY, io);
  if (key === undefined && required) {
    throw sdkError("AIRLOCK_SDK_USAGE", "missing --key <private key file> (or AIRLOCK_SIGNING_KEY)");
  }
  return key;
}

export const signCommand: PluginCliCommand = {
  name: "sign",
  summary: "write <file>.tgz.sig, the signature `airlock install ./file.tgz --trust-key` verifies",
  help: `Usage: airlock-plugin sign <file.tgz> --key <file>

Signs a packed tarball's sha512 integrity with your ed25519 private key (from \`keygen\`) and
writes the sidecar <file.tgz>.sig ({"keyid","sig"}) beside it. Hosts verify it with the
public key: \`airlock install ./<file.tgz> --trust-key <name>.pub\`. \`pack --key\` does the
same right after packing.

Options:
  --key <file>  PKCS#8 PEM private key (default: env AIRLOCK_SIGNING_KEY, a file path or the PEM)
  -h, --help    show this help

Example:
  airlock-plugin sign weather-1.2.0.tgz --key ~/.airlock/acme.key
`,
  async run(args, io) {
    try {
      const parsed = parse(args, { key: { type: "string" } }, 1);
      if (parsed.help) {
        io.stdout(this.help);
        return EXIT.OK;
      }
      const given = parsed.positionals[0];
      if (given === undefined) throw sdkError("AIRLOCK_SDK_USAGE", "missing <file.tgz>");
      const key = (await keyOption(stringOption(parsed, "key"), io, true)) as string;
      const tarball = resolve(io.cwd, given);
      let written: Awaited<ReturnType<typeof writeSignature>>;
      try {
        written = await writeSignature(tarball, key);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        throw sdkError("AIRLOCK_SDK_NOT_BUILT", `${given} does not exist — run airlock-plugin pack first`, {
          cause: err,
        });
      }
      io.stdout(
        `signed ${relative(io.cwd, written.file) || written.file} (key id ${written.signature.keyid})\n`,
      );
      return EXIT.OK;
    } catch (err) {
      return reportError(err, io);
    }
  },
};
