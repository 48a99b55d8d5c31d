// The npm-style package document (`GET /{name}`) built from the index.
// Contract: `dist.tarball` is an absolute URL under `baseUrl`; `dist-tags.latest` is the
// highest stable version (the highest prerelease only when no stable version exists);
// `versions[v].airlock` is the manifest exactly as published.
import type { PluginManifest } from "@airlock/sdk/manifest";
import type { IntegritySignature } from "@airlock/sdk/signing";
import semver from "semver";
import type { PackageRow } from "./storage.ts";

export interface PackumentVersion {
  name: string;
  version: string;
  airlock: PluginManifest;
  dist: { tarball: string; integrity: string; signatures: IntegritySignature[]; unpackedSize?: number };
}

export interface Packument {
  name: string;
  "dist-tags": { latest?: string };
  versions: Record<string, PackumentVersion>;
  time: Record<string, string>;
}

export function tarballFileName(name: string, version: string): string {
  return `${name}-${version}.tgz`;
}

export function buildPackument(pkg: PackageRow, baseUrl: string): Packument {
  const base = baseUrl.replace(/\/+$/, "");
  const all = pkg.versions.map((v) => v.version);
  const stable = all.filter((v) => semver.prerelease(v) === null);
  const latest = semver.maxSatisfying(stable.length > 0 ? stable : all, "*", { includePrerelease: true });
  const versions: Record<string, PackumentVersion> = {};
  const time: Record<string, string> = { created: pkg.createdAt };
  for (const v of pkg.versions) {
    versions[v.version] = {
      name: pkg.name,
      version: v.version,
      airlock: v.manifest,
      dist: {
        tarball: `${base}/${encodeURIComponent(pkg.name)}/-/${encodeURIComponent(tarballFileName(pkg.name, v.version))}`,
        integrity: v.integrity,
        signatures: v.signatures,
      },
    };
    time[v.version] = v.publishedAt;
    time.modified = v.publishedAt;
  }
  return { name: pkg.name, "dist-tags": latest === null ? {} : { latest }, versions, time };
}
