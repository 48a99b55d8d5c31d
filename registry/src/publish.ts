// Validation and recording of one publish (`PUT /{name}`).
// Contract: `publish(storage, name, body, owner)` either records exactly one new version
// (tarball file + index row) or throws an AirlockError and stores nothing new in the index.
// What it checks, in order: the name policy (when the namespace is new), the document's shape,
// the attachment (base64, declared length, size cap), the integrity of the attachment, the
// tarball itself (readPluginTarball: every AIRLOCK_PACKAGE_* refusal passes through), that the
// tarball's airlock.json equals the declared one and names this package and version, the
// strict-mode lint, and the signatures' shape. Ownership and immutability are enforced inside
// the storage transaction.
import { isDeepStrictEqual } from "node:util";
import { usesBeyondPlugin, usesProblemsText } from "@airlock/sdk";
import { lintManifestTools } from "@airlock/sdk/lint";
import type { PluginManifest } from "@airlock/sdk/manifest";
import { DEFAULT_TARBALL_LIMITS, readPluginTarball, sha512Integrity } from "@airlock/sdk/package";
import type { IntegritySignature } from "@airlock/sdk/signing";
import { registryError } from "./errors.ts";
import { checkNewName } from "./names.ts";
import type { RegistryStorage, VersionRow } from "./storage.ts";

export interface PublishLimits {
  maxTarballBytes: number;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function field<T>(ok: boolean, value: unknown, path: string, expected: string): T {
  if (!ok) throw registryError("AIRLOCK_REGISTRY_BAD_REQUEST", `${path} must be ${expected}`, { path });
  return value as T;
}

function signaturesOf(value: unknown): IntegritySignature[] {
  if (value === undefined) return [];
  const list = field<unknown[]>(Array.isArray(value), value, "dist.signatures", "an array");
  return list.map((s, i) => {
    if (
      !isObject(s) ||
      typeof s.keyid !== "string" ||
      !/^SHA256:[A-Za-z0-9+/]{43}$/.test(s.keyid) ||
      typeof s.sig !== "string" ||
      !/^[A-Za-z0-9+/]{86}==$/.test(s.sig)
    ) {
      throw registryError(
        "AIRLOCK_REGISTRY_SIGNATURE_MALFORMED",
        `dist.signatures[${i}] must be {keyid: "SHA256:<43 chars>", sig: <base64 ed25519>}`,
        {
          index: i,
        },
      );
    }
    return { keyid: s.keyid, sig: s.sig };
  });
}

function decodeAttachment(
  body: Record<string, unknown>,
  expectedFile: string,
  limits: PublishLimits,
): Uint8Array {
  const attachments = field<Record<string, unknown>>(
    isObject(body._attachments),
    body._attachments,
    "_attachments",
    "an object",
  );
  const keys = Object.keys(attachments);
  if (keys.length !== 1 || keys[0] !== expectedFile) {
    throw registryError("AIRLOCK_REGISTRY_BAD_REQUEST", `_attachments must hold exactly "${expectedFile}"`, {
      found: keys,
    });
  }
  const att = attachments[expectedFile];
  const data = field<string>(
    isObject(att) && typeof att.data === "string",
    isObject(att) ? att.data : undefined,
    `_attachments["${expectedFile}"].data`,
    "a base64 string",
  );
  if (data.length > Math.ceil((limits.maxTarballBytes * 4) / 3) + 4) {
    throw registryError(
      "AIRLOCK_REGISTRY_TOO_LARGE",
      `the tarball is larger than ${limits.maxTarballBytes} bytes`,
      {
        limit: limits.maxTarballBytes,
      },
    );
  }
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) {
    throw registryError("AIRLOCK_REGISTRY_BAD_REQUEST", `_attachments["${expectedFile}"].data is not base64`);
  }
  const bytes = new Uint8Array(Buffer.from(data, "base64"));
  if (isObject(att) && att.length !== undefined && att.length !== bytes.length) {
    throw registryError(
      "AIRLOCK_REGISTRY_MISMATCH",
      `attachment length ${String(att.length)} but ${bytes.length} bytes were sent`,
    );
  }
  return bytes;
}

export async function publish(
  storage: RegistryStorage,
  name: string,
  body: unknown,
  owner: string,
  limits: PublishLimits = { maxTarballBytes: DEFAULT_TARBALL_LIMITS.maxCompressedBytes },
): Promise<VersionRow> {
  const existing = storage.getPackage(name);
  if (existing === null) checkNewName(name, storage.packageNames());
  else if (existing.owner !== owner) {
    throw registryError("AIRLOCK_REGISTRY_FORBIDDEN", `"${name}" is owned by another publisher`, { name });
  }
  const doc = field<Record<string, unknown>>(isObject(body), body, "the body", "a JSON object");
  field(doc.name === name, doc.name, "name", `"${name}" (the name in the URL)`);
  const versions = field<Record<string, unknown>>(
    isObject(doc.versions),
    doc.versions,
    "versions",
    "an object",
  );
  const versionKeys = Object.keys(versions);
  const version = field<string>(
    versionKeys.length === 1,
    versionKeys[0],
    "versions",
    "an object with exactly one version",
  );
  const entry = field<Record<string, unknown>>(
    isObject(versions[version]),
    versions[version],
    `versions["${version}"]`,
    "an object",
  );
  field(
    entry.name === name && entry.version === version,
    entry,
    `versions["${version}"]`,
    `{name: "${name}", version: "${version}", ...}`,
  );
  const declared = field<Record<string, unknown>>(
    isObject(entry.airlock),
    entry.airlock,
    `versions["${version}"].airlock`,
    "the manifest object",
  );
  const dist = field<Record<string, unknown>>(
    isObject(entry.dist),
    entry.dist,
    `versions["${version}"].dist`,
    "an object",
  );
  const integrity = field<string>(
    typeof dist.integrity === "string",
    dist.integrity,
    "dist.integrity",
    "an SRI sha512 string",
  );
  const signatures = signaturesOf(dist.signatures);

  const bytes = decodeAttachment(doc, `${name}-${version}.tgz`, limits);
  if (sha512Integrity(bytes) !== integrity) {
    throw registryError("AIRLOCK_REGISTRY_MISMATCH", "dist.integrity does not match the attached tarball", {
      declared: integrity,
      actual: sha512Integrity(bytes),
    });
  }
  const tarball = await readPluginTarball(bytes, { maxCompressedBytes: limits.maxTarballBytes });
  const manifest: PluginManifest = tarball.manifest;
  if (manifest.namespace !== name || manifest.version !== version) {
    throw registryError(
      "AIRLOCK_REGISTRY_MISMATCH",
      `the tarball is ${manifest.namespace}@${manifest.version}, published as ${name}@${version}`,
    );
  }
  const shipped: unknown = JSON.parse(new TextDecoder().decode(tarball.files.manifest));
  if (!isDeepStrictEqual(declared, shipped)) {
    throw registryError(
      "AIRLOCK_REGISTRY_MISMATCH",
      "the declared airlock manifest differs from the tarball's airlock.json",
    );
  }
  const violations = lintManifestTools(manifest);
  if (violations.length > 0) {
    throw registryError(
      "AIRLOCK_REGISTRY_LINT_FAILED",
      `strict-mode lint failed with ${violations.length} violation(s)`,
      {
        violations: violations.map((v) => ({ ...v })),
      },
    );
  }
  // The build's and the installer's check of per-tool grants, so a hand-made tarball is refused
  // here already rather than by every host that installs it (docs/behaviour.md).
  const beyond = usesBeyondPlugin(manifest);
  if (beyond.length > 0) {
    throw registryError("AIRLOCK_REGISTRY_USES_EXCEEDED", usesProblemsText(beyond), {
      problems: beyond.map((p) => ({ ...p })),
    });
  }
  const sha512 = storage.putTarball(bytes);
  return storage.publishVersion(
    { name, version, manifest, integrity, signatures, sha512, size: bytes.length },
    owner,
    (names) => checkNewName(name, names),
  );
}
