// Package search (`GET /-/v1/search?text=&size=`), in the shape npm's search answers
// (`{objects: [{package: {name, version, description, date}}], total}`) so npm-style clients and
// the host's console read it alike. Contract: `text` matches, case-insensitively, a part of the
// name or of the latest version's description; an empty text lists every package; names match
// before descriptions, then by name; at most `size` (1–50, default 20) objects, `total` counts all.
// Reads the index only; a registry of a few thousand packages is scanned in one pass.
import semver from "semver";
import { registryError } from "./errors.ts";
import type { PackageRow, RegistryStorage } from "./storage.ts";

export interface SearchObject {
  package: { name: string; version: string; description: string; date: string };
}

export interface SearchAnswer {
  objects: SearchObject[];
  total: number;
}

export const MAX_SEARCH_TEXT = 64;
export const MAX_SEARCH_SIZE = 50;

function latestOf(pkg: PackageRow) {
  const stable = pkg.versions.filter((v) => semver.prerelease(v.version) === null);
  const pool = stable.length > 0 ? stable : pkg.versions;
  return pool.reduce<(typeof pool)[number] | undefined>(
    (best, v) => (best === undefined || semver.gt(v.version, best.version) ? v : best),
    undefined,
  );
}

/** Parses `size`: absent is 20; anything but an integer 1–50 is AIRLOCK_REGISTRY_BAD_REQUEST. */
export function searchSize(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 20;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SEARCH_SIZE) {
    throw registryError(
      "AIRLOCK_REGISTRY_BAD_REQUEST",
      `size must be an integer from 1 to ${MAX_SEARCH_SIZE}`,
    );
  }
  return n;
}

export function searchPackages(storage: RegistryStorage, text: string, size: number): SearchAnswer {
  if (text.length > MAX_SEARCH_TEXT) {
    throw registryError("AIRLOCK_REGISTRY_BAD_REQUEST", `text is at most ${MAX_SEARCH_TEXT} characters`);
  }
  const q = text.trim().toLowerCase();
  const hits: Array<{ rank: number; object: SearchObject }> = [];
  for (const name of storage.packageNames()) {
    const pkg = storage.getPackage(name);
    const latest = pkg === null ? undefined : latestOf(pkg);
    if (latest === undefined) continue;
    const description = latest.manifest.description ?? "";
    const rank = q === "" || name.includes(q) ? 0 : description.toLowerCase().includes(q) ? 1 : -1;
    if (rank < 0) continue;
    hits.push({
      rank,
      object: { package: { name, version: latest.version, description, date: latest.publishedAt } },
    });
  }
  hits.sort((a, b) => a.rank - b.rank || a.object.package.name.localeCompare(b.object.package.name));
  return { objects: hits.slice(0, size).map((h) => h.object), total: hits.length };
}
