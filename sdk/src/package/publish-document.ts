// The body of `PUT /{name}` on an Airlock registry (npm publish shape), built from a tarball.
// Contract: `publishDocument(tarball, manifest, signatures)` returns {name, versions: {[v]:
// {name, version, airlock, dist: {integrity, signatures}}}, _attachments: {"<name>-<v>.tgz":
// {content_type, data: base64, length}}}; the registry recomputes and checks every field.
import type { PluginManifest } from "../manifest.ts";
import { sha512Integrity } from "./read-plugin-tarball.ts";

export interface PublishSignature {
  keyid: string;
  sig: string;
}

export interface PublishDocument {
  name: string;
  versions: Record<
    string,
    {
      name: string;
      version: string;
      airlock: PluginManifest;
      dist: { integrity: string; signatures: PublishSignature[] };
    }
  >;
  _attachments: Record<string, { content_type: string; data: string; length: number }>;
}

export function publishDocument(
  tarball: Uint8Array,
  manifest: PluginManifest,
  signatures: PublishSignature[] = [],
): PublishDocument {
  const name = manifest.namespace;
  const version = manifest.version;
  return {
    name,
    versions: {
      [version]: {
        name,
        version,
        airlock: manifest,
        dist: { integrity: sha512Integrity(tarball), signatures },
      },
    },
    _attachments: {
      [`${name}-${version}.tgz`]: {
        content_type: "application/octet-stream",
        data: Buffer.from(tarball).toString("base64"),
        length: tarball.length,
      },
    },
  };
}
