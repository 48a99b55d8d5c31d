// The npm-style JSON document `airlock-plugin publish` sends as `PUT {registry}/{namespace}`:
// {name, versions: {[version]: {name, version, airlock: manifest, dist: {integrity,
// signatures}}}, _attachments: {"<namespace>-<version>.tgz": {content_type, data, length}}}.
// Invariant: `dist.integrity` is the sha512 of exactly the attached bytes, and every signature
// signs that integrity string.
import type { PluginManifest } from "../manifest.ts";
import { type IntegritySignature, integrityOf } from "../signing.ts";
import { tarballName } from "./pack.ts";

export interface PublishDocument {
  name: string;
  versions: Record<
    string,
    {
      name: string;
      version: string;
      airlock: PluginManifest;
      dist: { integrity: string; signatures: IntegritySignature[] };
    }
  >;
  _attachments: Record<string, { content_type: "application/octet-stream"; data: string; length: number }>;
}

export function publishDocument(
  manifest: PluginManifest,
  tarball: Uint8Array,
  signatures: readonly IntegritySignature[],
): PublishDocument {
  const { namespace: name, version } = manifest;
  return {
    name,
    versions: {
      [version]: {
        name,
        version,
        airlock: manifest,
        dist: { integrity: integrityOf(tarball), signatures: [...signatures] },
      },
    },
    _attachments: {
      [tarballName(manifest)]: {
        content_type: "application/octet-stream",
        data: Buffer.from(tarball).toString("base64"),
        length: tarball.byteLength,
      },
    },
  };
}
