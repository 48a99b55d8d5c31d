// The bootstrap's parts against the real registry (a child process on loopback) and the real
// SDK build: signed first-party tarballs are published once, cached by source hash, and the
// registry and its publish token survive a restart on the same data dir.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyIntegritySignature } from "@airlock/sdk/signing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listFirstPartyPlugins } from "./first-party.ts";
import { packFirstParty } from "./package-cache.ts";
import { publishIfMissing } from "./publish.ts";
import { type LocalRegistry, startLocalRegistry } from "./registry-process.ts";
import { loadOrCreateSigningKey } from "./signing-key.ts";

describe("first-party bootstrap parts", () => {
  let dir: string;
  let registry: LocalRegistry | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-bootstrap-"));
  });
  afterAll(async () => {
    await registry?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("finds the six first-party plugins by their @airlock-plugins package names", async () => {
    const names = (await listFirstPartyPlugins()).map((p) => p.name);
    expect(names).toEqual(["http-json", "notes", "render", "room", "upload", "weather"]);
  });

  it("keeps one signing key per data dir", async () => {
    const a = await loadOrCreateSigningKey(dir);
    const b = await loadOrCreateSigningKey(dir);
    expect(b.keyId).toBe(a.keyId);
    expect(a.keyId).toMatch(/^SHA256:/);
  });

  it("publishes a signed tarball once, then reuses the cached build and the registry copy", async () => {
    const key = await loadOrCreateSigningKey(dir);
    registry = await startLocalRegistry({ dir, owner: "airlock" });
    expect(registry.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const notes = (await listFirstPartyPlugins()).find((p) => p.name === "notes")!;
    const first = await packFirstParty(notes, key, join(dir, "cache"));
    expect(first.cached).toBe(false);
    expect(verifyIntegritySignature(first.integrity, first.signature, key.publicKeyPem)).toBe(true);
    expect(await publishIfMissing(registry.url, registry.token, first)).toBe(true);

    const again = await packFirstParty(notes, key, join(dir, "cache"));
    expect(again.cached).toBe(true);
    expect(again.integrity).toBe(first.integrity);
    expect(await publishIfMissing(registry.url, registry.token, again)).toBe(false);

    const doc = (await (await fetch(`${registry.url}/notes`)).json()) as {
      versions: Record<string, { dist: { integrity: string; signatures: Array<{ keyid: string }> } }>;
    };
    expect(doc.versions["1.0.0"]?.dist.integrity).toBe(first.integrity);
    expect(doc.versions["1.0.0"]?.dist.signatures.map((s) => s.keyid)).toEqual([key.keyId]);
  });

  it("restarts the registry on the same data dir with the same URL, publish token and packages", async () => {
    const token = registry!.token;
    const url = registry!.url;
    await registry!.close();
    registry = await startLocalRegistry({ dir, owner: "airlock" });
    // Installed plugins record this URL and upgrade from it: the port must not move.
    expect(registry.url).toBe(url);
    expect(registry.token).toBe(token);
    expect((await readFile(join(dir, "publish-token"), "utf8")).trim()).toBe(token);
    const res = await fetch(`${registry.url}/notes`);
    expect(res.status).toBe(200);
  });
});
