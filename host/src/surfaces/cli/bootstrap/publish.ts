// Publishes a signed first-party tarball to the local registry (npm-style `PUT /{name}` with
// the SDK's publish document), unless that version is already there: registry versions are
// immutable, so a restart publishes nothing it published before.
import { publishDocument } from "@airlock/sdk/package";
import { bootstrapError } from "./errors.ts";
import type { PackedPlugin } from "./package-cache.ts";

async function hasVersion(registryUrl: string, name: string, version: string): Promise<boolean> {
  const res = await fetch(`${registryUrl}/${encodeURIComponent(name)}`);
  if (res.status === 404) return false;
  if (!res.ok) {
    throw bootstrapError(
      "AIRLOCK_BOOTSTRAP_PLUGIN_FAILED",
      `the registry answered ${res.status} for ${name}`,
      {
        details: { plugin: name, step: "resolve" },
      },
    );
  }
  const doc = (await res.json()) as { versions?: Record<string, unknown> };
  return doc.versions?.[version] !== undefined;
}

/** Returns true when it published, false when the registry already had this version. */
export async function publishIfMissing(
  registryUrl: string,
  token: string,
  packed: PackedPlugin,
): Promise<boolean> {
  const { namespace: name, version } = packed.manifest;
  if (await hasVersion(registryUrl, name, version)) return false;
  const body = publishDocument(packed.tarball, packed.manifest, [packed.signature]);
  const res = await fetch(`${registryUrl}/${encodeURIComponent(name)}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) {
    throw bootstrapError(
      "AIRLOCK_BOOTSTRAP_PLUGIN_FAILED",
      `publishing ${name}@${version} failed: ${res.status} ${(await res.text()).slice(0, 500)}`,
      { details: { plugin: name, step: "publish" } },
    );
  }
  return true;
}
