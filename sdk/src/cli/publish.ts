// `airlock-plugin publish [dir] [--registry URL] [--token T] [--key FILE]`: packs dist/ (the
// same bytes `pack` writes), signs its integrity when a key is given, and uploads it with
// undici as `PUT {registry}/{namespace}`. A registry refusal `{error: {code, message}}` is
// printed as `error <code>: <message>` with exit 1. The token is never printed.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { request } from "undici";
import { readDist, tarballOf } from "../build/pack.ts";
import { sdkError } from "../error-codes.ts";
import { publishDocument } from "../package/publish-document.ts";
import { integrityOf, signIntegrity } from "../signing.ts";
import { parse, pluginDirOf, reportError, stringOption } from "./args.ts";
import { errorLine } from "./kit/report.ts";
import { type CliIO, EXIT, type PluginCliCommand } from "./types.ts";

export const DEFAULT_REGISTRY = "http://127.0.0.1:4873";

/** The private key PEM from --key / AIRLOCK_SIGNING_KEY: a file path or the PEM itself. */
export async function signingKey(value: string | undefined, io: CliIO): Promise<string | undefined> {
  if (value === undefined || value === "") return undefined;
  if (value.includes("-----BEGIN")) return value;
  try {
    return await readFile(resolve(io.cwd, value), "utf8");
  } catch (err) {
    throw sdkError("AIRLOCK_SDK_KEY_INVALID", `cannot read the signing key file ${value}`, { cause: err });
  }
}

function registryUrl(base: string, namespace: string): URL {
  let url: URL;
  try {
    url = new URL(base.endsWith("/") ? base : `${base}/`);
  } catch (err) {
    throw sdkError("AIRLOCK_SDK_USAGE", `--registry "${base}" is not a URL`, { cause: err });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw sdkError("AIRLOCK_SDK_USAGE", `--registry must be an http(s) URL, got ${url.protocol}`);
  }
  return new URL(encodeURIComponent(namespace), url);
}

export const publishCommand: PluginCliCommand = {
  name: "publish",
  summary: "sign and upload the packed plugin to a registry",
  help: `Usage: airlock-plugin publish [dir] [--registry <url>] [--token <t>] [--key <file>]

Packs the built plugin at [dir] (default: the current directory) exactly as \`pack\` does,
signs the tarball's sha512 integrity with your ed25519 key (when one is given), and uploads
it as PUT <registry>/<namespace> with an npm-style JSON body. Run \`build\` first.

Options:
  --registry <url>  registry base URL (default: env AIRLOCK_REGISTRY_URL, else ${DEFAULT_REGISTRY})
  --token <t>       publish token, sent as "Authorization: Bearer <t>"
                    (default: env AIRLOCK_REGISTRY_TOKEN; required)
  --key <file>      PKCS#8 PEM private key from \`keygen\` (default: env AIRLOCK_SIGNING_KEY,
                    which may hold a file path or the PEM itself); without a key the upload
                    carries no signature
  -h, --help        show this help

Exit status: 0 when the registry accepted the version; 1 when it refused (its error code
and message are printed), could not be reached, or dist/ is missing; 2 on wrong usage.

Example:
  AIRLOCK_REGISTRY_TOKEN=... airlock-plugin publish --registry https://registry.example --key acme.key
`,
  async run(args, io) {
    try {
      const parsed = parse(
        args,
        { registry: { type: "string" }, token: { type: "string" }, key: { type: "string" } },
        1,
      );
      if (parsed.help) {
        io.stdout(this.help);
        return EXIT.OK;
      }
      const token = stringOption(parsed, "token") ?? io.env.AIRLOCK_REGISTRY_TOKEN;
      if (token === undefined || token === "") {
        throw sdkError(
          "AIRLOCK_SDK_USAGE",
          "publish needs a token: --token <t> or env AIRLOCK_REGISTRY_TOKEN",
        );
      }
      const base = stringOption(parsed, "registry") ?? io.env.AIRLOCK_REGISTRY_URL ?? DEFAULT_REGISTRY;
      const { manifest, files } = await readDist(pluginDirOf(parsed, io));
      const url = registryUrl(base, manifest.namespace);
      const tarball = await tarballOf(files);
      const key = await signingKey(stringOption(parsed, "key") ?? io.env.AIRLOCK_SIGNING_KEY, io);
      const signatures = key === undefined ? [] : [signIntegrity(integrityOf(tarball), key)];
      if (key === undefined)
        io.stderr("note: no signing key (--key / AIRLOCK_SIGNING_KEY): publishing unsigned\n");
      const body = JSON.stringify(publishDocument(tarball, manifest, [...signatures]));
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(url, {
          method: "PUT",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body,
        });
      } catch (err) {
        throw sdkError(
          "AIRLOCK_SDK_PUBLISH_FAILED",
          `cannot reach the registry at ${url.origin}: ${(err as Error).message}`,
          {
            cause: err,
          },
        );
      }
      const text = await response.body.text();
      if (response.statusCode >= 200 && response.statusCode < 300) {
        io.stdout(
          `published ${manifest.namespace}@${manifest.version} to ${url.origin} (${response.statusCode})\n`,
        );
        io.stdout(`integrity ${integrityOf(tarball)}\n`);
        if (signatures[0]) io.stdout(`signed by ${signatures[0].keyid}\n`);
        return EXIT.OK;
      }
      const error = parseRegistryError(text);
      io.stderr(errorLine(error.code, `${error.message} (HTTP ${response.statusCode})`));
      return EXIT.FAILED;
    } catch (err) {
      return reportError(err, io);
    }
  },
};

function parseRegistryError(text: string): { code: string; message: string } {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof parsed.error?.code === "string") {
      return { code: parsed.error.code, message: String(parsed.error.message ?? "") };
    }
  } catch (err) {
    return {
      code: "AIRLOCK_SDK_PUBLISH_FAILED",
      message: `the registry answered non-JSON (${(err as Error).message}): ${text.slice(0, 200)}`,
    };
  }
  return {
    code: "AIRLOCK_SDK_PUBLISH_FAILED",
    message: `the registry answered without an error code: ${text.slice(0, 200)}`,
  };
}
