// Reads and validates a plugin tarball in memory: the one entry point the registry (on publish)
// and the host's installer (before writing anything) call.
// Contract: `readPluginTarball(bytes, limits?)` returns {manifest, packageJson, bundle, files,
// entries} (files.ui: each listed UI's bytes by name) or throws an AirlockError whose code names the refusal (AIRLOCK_PACKAGE_* from
// errors.ts, or AIRLOCK_MANIFEST_INVALID / AIRLOCK_MANIFEST_NOT_UNICODE from parseManifest). Invariants: the bundle's sha512
// and size match manifest.bundle; every UI file is listed in manifest.ui and matches its sha512
// and size, every listed UI is present, tools name listed UIs and CSPs stay within egress
// (AIRLOCK_PACKAGE_UI_*); package.json's version matches the manifest's; nothing is written anywhere.
import { createHash } from "node:crypto";
import { uiFileOf, uiProblems } from "../apps-format.ts";
import { type PluginManifest, parseManifest } from "../manifest.ts";
import { verifyManifestSkills } from "../skills.ts";
import { duplicateKey, loneSurrogatePath } from "../strict-json.ts";
import {
  DEFAULT_TARBALL_LIMITS,
  inflate,
  PACKAGE_FILES,
  packageError,
  type TarballEntry,
  type TarballLimits,
  UI_ENTRY,
  untar,
} from "./untar.ts";

export interface PluginTarball {
  manifest: PluginManifest;
  packageJson: Record<string, unknown>;
  bundle: string;
  /** The exact bytes of each file, for a caller that writes them out (with its own modes). */
  files: { packageJson: Uint8Array; manifest: Uint8Array; bundle: Uint8Array; ui: Map<string, Uint8Array> };
  entries: TarballEntry[];
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function jsonObject(bytes: Uint8Array, file: string): Record<string, unknown> {
  let value: unknown;
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
    value = JSON.parse(text);
  } catch (err) {
    throw packageError(
      "AIRLOCK_PACKAGE_JSON_INVALID",
      `${file} is not UTF-8 JSON: ${(err as Error).message}`,
      {
        file,
      },
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw packageError("AIRLOCK_PACKAGE_JSON_INVALID", `${file} must hold a JSON object`, { file });
  }
  // JSON.parse keeps the last of two equal keys: the registry, the host and a reviewer's tool
  // could each read a different document from the same bytes.
  const twice = duplicateKey(text);
  if (twice !== null) {
    throw packageError(
      "AIRLOCK_PACKAGE_JSON_DUPLICATE_KEY",
      `${file} has the key ${JSON.stringify(twice.key)} twice in ${twice.path}`,
      { file, path: twice.path, key: twice.key },
    );
  }
  return value as Record<string, unknown>;
}

/** `sha512-<base64>` of some bytes (the SRI form manifests and packuments carry). */
export function sha512Integrity(bytes: Uint8Array): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}

/** Refuses a package.json string or key holding a lone surrogate (AIRLOCK_PACKAGE_JSON_NOT_UNICODE). */
export function packageJsonUnicode(packageJson: Record<string, unknown>): void {
  const path = loneSurrogatePath(packageJson);
  if (path !== null) {
    throw packageError(
      "AIRLOCK_PACKAGE_JSON_NOT_UNICODE",
      `package.json: ${path} holds a lone UTF-16 surrogate (not Unicode text); send Unicode text`,
      { file: "package.json", path },
    );
  }
}

export async function readPluginTarball(
  bytes: Uint8Array,
  limits: Partial<TarballLimits> = {},
): Promise<PluginTarball> {
  const caps: TarballLimits = { ...DEFAULT_TARBALL_LIMITS, ...limits };
  const { files, entries } = await untar(inflate(bytes, caps), caps);
  for (const path of PACKAGE_FILES) {
    if (!files.has(path)) {
      throw packageError("AIRLOCK_PACKAGE_MISSING_FILE", `the tarball has no ${path}`, { path });
    }
  }
  const raw = {
    packageJson: files.get("package/package.json") as Uint8Array,
    manifest: files.get("package/airlock.json") as Uint8Array,
    bundle: files.get("package/index.js") as Uint8Array,
  };
  const packageJson = jsonObject(raw.packageJson, "package.json");
  packageJsonUnicode(packageJson);
  const manifest = parseManifest(jsonObject(raw.manifest, "airlock.json"));
  verifyManifestSkills(manifest); // every listed skill file against its sha512

  let bundle: string;
  try {
    bundle = strictUtf8.decode(raw.bundle);
  } catch (err) {
    throw packageError(
      "AIRLOCK_PACKAGE_BUNDLE_INVALID",
      `index.js is not valid UTF-8: ${(err as Error).message}`,
    );
  }
  const integrity = sha512Integrity(raw.bundle);
  if (integrity !== manifest.bundle.integrity || raw.bundle.length !== manifest.bundle.size) {
    throw packageError(
      "AIRLOCK_PACKAGE_BUNDLE_MISMATCH",
      "index.js does not match manifest.bundle (integrity or size); the tarball was altered after build",
      {
        expected: manifest.bundle.integrity,
        actual: integrity,
        expectedSize: manifest.bundle.size,
        size: raw.bundle.length,
      },
    );
  }
  const ui = verifyUiFiles(manifest, files);
  if (packageJson.version !== manifest.version) {
    throw packageError(
      "AIRLOCK_PACKAGE_METADATA_MISMATCH",
      `package.json version ${String(packageJson.version)} differs from airlock.json version ${manifest.version}`,
    );
  }
  return { manifest, packageJson, bundle, files: { ...raw, ui }, entries };
}

/** Each UI file listed, present and matching its hash; tools naming listed UIs; CSPs within egress. */
function verifyUiFiles(
  manifest: PluginManifest,
  files: ReadonlyMap<string, Uint8Array>,
): Map<string, Uint8Array> {
  const listed = new Map((manifest.ui ?? []).map((u) => [u.name, u]));
  for (const path of files.keys()) {
    const name = UI_ENTRY.exec(path)?.[1];
    if (name !== undefined && !listed.has(name)) {
      throw packageError(
        "AIRLOCK_PACKAGE_UI_UNLISTED",
        `${path.slice("package/".length)} is in the tarball but the manifest lists no UI "${name}"`,
        { path },
      );
    }
  }
  const problem = uiProblems(manifest)[0];
  if (problem !== undefined) {
    const code = problem.kind === "csp" ? "AIRLOCK_PACKAGE_UI_CSP" : "AIRLOCK_PACKAGE_UI_UNKNOWN";
    throw packageError(code, `airlock.json ${problem.path}: ${problem.message}`, { path: problem.path });
  }
  const out = new Map<string, Uint8Array>();
  for (const ui of listed.values()) {
    const bytes = files.get(`package/${uiFileOf(ui.name)}`);
    if (bytes === undefined) {
      throw packageError(
        "AIRLOCK_PACKAGE_UI_MISSING",
        `the manifest lists the UI ${ui.file}, which the tarball lacks`,
        {
          path: ui.file,
        },
      );
    }
    const integrity = sha512Integrity(bytes);
    if (integrity !== ui.integrity || bytes.length !== ui.size) {
      throw packageError(
        "AIRLOCK_PACKAGE_UI_MISMATCH",
        `${ui.file} does not match its manifest entry (integrity or size); the tarball was altered after build`,
        {
          path: ui.file,
          expected: ui.integrity,
          actual: integrity,
          expectedSize: ui.size,
          size: bytes.length,
        },
      );
    }
    out.set(ui.name, bytes);
  }
  return out;
}
