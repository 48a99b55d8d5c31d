// The installer's side of the registry protocol, over HTTP with undici (host/ never imports
// registry/). Contract: `fetchPackument(base, name)` returns the validated parts the installer
// needs; `fetchTarball(url, maxBytes)` streams the bytes with a cap. Failures map to
// AIRLOCK_INSTALL_{REGISTRY_UNREACHABLE, NOT_FOUND, REGISTRY_ERROR}. `searchRegistry(base, text,
// size)` reads the registry's npm-style search for the console.
import type { IntegritySignature } from "@airlock/sdk/signing";
import type { request } from "undici";
import { loadUndici } from "../../isolation/egress/undici.ts";
import { installError } from "./errors.ts";

export interface ResolvedDist {
  tarball: string;
  integrity: string;
  signatures: IntegritySignature[];
}

export interface PackumentView {
  name: string;
  latest: string | undefined;
  versions: Map<string, ResolvedDist>;
}

const MAX_PACKUMENT_BYTES = 16 * 1024 * 1024;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

async function get(
  url: string,
  maxBytes: number,
  what: string,
): Promise<{ status: number; bytes: Uint8Array }> {
  let res: Awaited<ReturnType<typeof request>>;
  try {
    const { request } = await loadUndici();
    res = await request(url, { method: "GET", headersTimeout: 30_000, bodyTimeout: 60_000 });
  } catch (err) {
    throw installError(
      "AIRLOCK_INSTALL_REGISTRY_UNREACHABLE",
      `cannot reach ${url}: ${(err as Error).message}`,
      { url },
      err,
    );
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Uint8Array).length;
    if (size > maxBytes) {
      res.body.destroy();
      throw installError(
        "AIRLOCK_INSTALL_REGISTRY_ERROR",
        `${what} from ${url} is larger than ${maxBytes} bytes`,
        { url },
      );
    }
    chunks.push(chunk as Uint8Array);
  }
  return { status: res.statusCode, bytes: new Uint8Array(Buffer.concat(chunks)) };
}

function parseSignatures(value: unknown): IntegritySignature[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (s): s is IntegritySignature => isObject(s) && typeof s.keyid === "string" && typeof s.sig === "string",
  );
}

/** A registry answer's body as JSON, or AIRLOCK_INSTALL_REGISTRY_ERROR naming `what` and `url`. */
function registryJson(bytes: Uint8Array, url: string, what: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    throw installError("AIRLOCK_INSTALL_REGISTRY_ERROR", `${what} at ${url} is not JSON`, { url }, err);
  }
}

export async function fetchPackument(baseUrl: string, name: string): Promise<PackumentView> {
  const url = `${baseUrl.replace(/\/+$/, "")}/${encodeURIComponent(name)}`;
  const { status, bytes } = await get(url, MAX_PACKUMENT_BYTES, "the package document");
  if (status === 404)
    throw installError("AIRLOCK_INSTALL_NOT_FOUND", `the registry has no package "${name}"`, { name, url });
  if (status !== 200)
    throw installError("AIRLOCK_INSTALL_REGISTRY_ERROR", `GET ${url} answered ${status}`, { url, status });
  const doc = registryJson(bytes, url, "the package document");
  if (!isObject(doc) || doc.name !== name || !isObject(doc.versions)) {
    throw installError(
      "AIRLOCK_INSTALL_REGISTRY_ERROR",
      `the package document at ${url} is not a packument for ${name}`,
      { url },
    );
  }
  const versions = new Map<string, ResolvedDist>();
  for (const [version, entry] of Object.entries(doc.versions)) {
    if (!isObject(entry) || !isObject(entry.dist)) continue;
    const { tarball, integrity } = entry.dist;
    if (typeof tarball !== "string" || typeof integrity !== "string") continue;
    versions.set(version, { tarball, integrity, signatures: parseSignatures(entry.dist.signatures) });
  }
  const tags = isObject(doc["dist-tags"]) ? doc["dist-tags"] : {};
  return { name, latest: typeof tags.latest === "string" ? tags.latest : undefined, versions };
}

export async function fetchTarball(url: string, maxBytes: number): Promise<Uint8Array> {
  const protocol = URL.canParse(url) ? new URL(url).protocol : "";
  if (protocol !== "http:" && protocol !== "https:") {
    throw installError("AIRLOCK_INSTALL_REGISTRY_ERROR", `tarball URL "${url}" is not http(s)`, { url });
  }
  const { status, bytes } = await get(url, maxBytes, "the tarball");
  if (status !== 200)
    throw installError("AIRLOCK_INSTALL_REGISTRY_ERROR", `GET ${url} answered ${status}`, { url, status });
  return bytes;
}

export interface RegistrySearchHit {
  name: string;
  version: string;
  description: string;
}

const MAX_SEARCH_BYTES = 1024 * 1024;

/** `GET /-/v1/search` (npm's shape): packages whose name or description contains `text`. */
export async function searchRegistry(
  baseUrl: string,
  text: string,
  size: number,
): Promise<{ hits: RegistrySearchHit[]; total: number }> {
  const url = `${baseUrl.replace(/\/+$/, "")}/-/v1/search?text=${encodeURIComponent(text)}&size=${size}`;
  const { status, bytes } = await get(url, MAX_SEARCH_BYTES, "the search answer");
  if (status !== 200)
    throw installError("AIRLOCK_INSTALL_REGISTRY_ERROR", `GET ${url} answered ${status}`, { url, status });
  const doc = registryJson(bytes, url, "the search answer");
  if (!isObject(doc) || !Array.isArray(doc.objects)) {
    throw installError("AIRLOCK_INSTALL_REGISTRY_ERROR", `the search answer at ${url} has no objects`, {
      url,
    });
  }
  const hits: RegistrySearchHit[] = [];
  for (const o of doc.objects) {
    const p = isObject(o) && isObject(o.package) ? o.package : null;
    if (p === null || typeof p.name !== "string" || typeof p.version !== "string") continue;
    hits.push({
      name: p.name,
      version: p.version,
      description: typeof p.description === "string" ? p.description : "",
    });
  }
  return { hits, total: typeof doc.total === "number" ? doc.total : hits.length };
}
