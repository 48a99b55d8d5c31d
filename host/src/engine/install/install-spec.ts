// Installing from a spec: a registry URL, a file or tarball path, or name@range from the
// configured registry; the bytes are then handed to installVerified (install-verified.ts), which
// checks and installs them under the namespace lock.
// Contract: `installSpec` answers the InstallReport of installVerified; `installFromRegistry`
// picks the version (compat.ts) and fetches the packument and tarball (registry-client.ts).
// Invariants: a spec that is neither a URL, a file nor name@range is AIRLOCK_INSTALL_SPEC_INVALID;
// an unreadable file or `.sig` sidecar is AIRLOCK_INSTALL_FILE_UNREADABLE; a file that is not a
// plugin tarball keeps its AIRLOCK_PACKAGE_* code with the file named; a file refused as
// unsigned with no sidecar names the `<file>.sig` that was looked for; a tarball fetched from
// a registry must match the integrity the packument names (expected), and is capped at
// limits.maxCompressedBytes (8 MiB by default); a prerelease is taken only when the range names
// one or allowPrerelease says so.
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { AirlockError, hasCode } from "@airlock/sdk/errors";
import type { IntegritySignature } from "@airlock/sdk/signing";
import type { InstallOptions, InstallReport } from "../../contracts/host.ts";
import { pickVersion } from "./compat.ts";
import type { LifecycleContext } from "./context.ts";
import { installError } from "./errors.ts";
import { installVerified } from "./install-verified.ts";
import { rangeNamesPrerelease } from "./ordering.ts";
import { fetchPackument, fetchTarball } from "./registry-client.ts";

const NAME_RANGE = /^([a-z][a-z0-9-]{1,31})(?:@(.*))?$/;

function parseNameRange(text: string): { name: string; range: string } {
  const m = NAME_RANGE.exec(text);
  if (m === null) {
    throw installError("AIRLOCK_INSTALL_SPEC_INVALID", `"${text}" is not name@range (e.g. weather@^1.2.0)`, {
      spec: text,
    });
  }
  return { name: m[1] as string, range: (m[2] ?? "").trim() };
}

function readSidecarSignatures(path: string): IntegritySignature[] {
  const file = `${path}.sig`;
  if (!existsSync(file)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw installError(
      "AIRLOCK_INSTALL_FILE_UNREADABLE",
      `${file} is not a JSON signature ({"keyid","sig"})`,
      { file },
      err,
    );
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.filter(
    (s): s is IntegritySignature =>
      typeof s === "object" && s !== null && typeof s.keyid === "string" && typeof s.sig === "string",
  );
}

/** A file or tarball names no range: a prerelease in it is asked for only by allowPrerelease. */
export function fileOrdering(opts: InstallOptions) {
  return {
    allowUnsigned: opts.allowUnsigned === true,
    allowDowngrade: opts.allowDowngrade === true,
    prereleaseAsked: opts.allowPrerelease === true,
  };
}

/** Installs `name` at the best version matching `range` from the registry at `base`. */
export async function installFromRegistry(
  ctx: LifecycleContext,
  base: string,
  name: string,
  range: string,
  opts: InstallOptions,
): Promise<InstallReport> {
  const packument = await fetchPackument(base, name);
  const version = pickVersion(name, [...packument.versions.keys()], range, packument.latest);
  const dist = packument.versions.get(version);
  if (dist === undefined)
    throw installError("AIRLOCK_INSTALL_REGISTRY_ERROR", `${name}@${version} has no dist`);
  const bytes = await fetchTarball(dist.tarball, ctx.limits.maxCompressedBytes ?? 8 * 1024 * 1024);
  return installVerified(ctx, {
    bytes,
    source: `${base.replace(/\/+$/, "")}/${name}@${version}`,
    origin: base.replace(/\/+$/, ""),
    signatures: dist.signatures,
    allowUnsigned: opts.allowUnsigned === true,
    allowDowngrade: opts.allowDowngrade === true,
    prereleaseAsked: opts.allowPrerelease === true || rangeNamesPrerelease(range),
    ...(opts.trustKeys === undefined ? {} : { trustKeys: opts.trustKeys }),
    expected: { name, version, integrity: dist.integrity },
  });
}

/**
 * Installs what `spec` names: `http(s)://<registry>/<name>@<range>`, a file (`file:`, `*.tgz`,
 * a relative or absolute path, with its `.sig` sidecar), or `<name>@<range>` from the
 * configured registry (AIRLOCK_INSTALL_NO_REGISTRY without one).
 */
export async function installSpec(
  ctx: LifecycleContext,
  spec: string,
  opts: InstallOptions,
): Promise<InstallReport> {
  if (/^https?:\/\//.test(spec)) {
    const slash = spec.lastIndexOf("/");
    const { name, range } = parseNameRange(spec.slice(slash + 1));
    return installFromRegistry(ctx, spec.slice(0, slash), name, range, opts);
  }
  if (spec.startsWith("file:") || spec.endsWith(".tgz") || /^\.{0,2}\//.test(spec)) {
    const raw = spec.startsWith("file:") ? spec.slice(5) : spec;
    const path = isAbsolute(raw) ? raw : resolve(ctx.cwd, raw);
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(readFileSync(path));
    } catch (err) {
      throw installError("AIRLOCK_INSTALL_FILE_UNREADABLE", `cannot read ${path}`, { path }, err);
    }
    const hasSidecar = existsSync(`${path}.sig`);
    return installVerified(ctx, {
      bytes,
      source: `file:${path}`,
      origin: `file:${path}`,
      signatures: readSidecarSignatures(path),
      ...fileOrdering(opts),
      ...(opts.trustKeys === undefined ? {} : { trustKeys: opts.trustKeys }),
    }).catch((error: unknown) => {
      // A file that is not a plugin tarball: the error names the file as well as what is wrong.
      if (hasCode(error) && error.code.startsWith("AIRLOCK_PACKAGE_")) {
        const { status, details } = error as { status?: number; details?: Record<string, unknown> };
        throw new AirlockError(error.code, `${path} is not a plugin tarball: ${error.message}`, {
          status: status ?? 422,
          ...(details === undefined ? {} : { details }),
          cause: error,
        });
      }
      if (hasSidecar || !hasCode(error, "AIRLOCK_INSTALL_UNSIGNED")) throw error;
      // Name the signature file that was looked for: a --trust-key alone signs nothing.
      throw installError(
        "AIRLOCK_INSTALL_UNSIGNED",
        `${path} is not signed: there is no ${path}.sig beside it (\`airlock-plugin pack --key\` or \`airlock-plugin sign\` writes one) — put the publisher's .sig there, or pass --allow-unsigned to install it unsigned`,
        { path, expectedSignature: `${path}.sig` },
        error,
      );
    });
  }
  const { name, range } = parseNameRange(spec);
  if (ctx.registryUrl === undefined) {
    throw installError("AIRLOCK_INSTALL_NO_REGISTRY", `"${spec}" needs a registry; none is configured`);
  }
  return installFromRegistry(ctx, ctx.registryUrl, name, range, opts);
}
