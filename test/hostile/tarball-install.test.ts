// Hostile tarballs and hostile registries against the real installer: every attack is refused
// with its code, nothing is written outside the staging directory (and staging is left empty),
// the store records nothing, and the host stays able to install a good plugin afterwards.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPluginLifecycle } from "@airlock/host/engine/install/index.ts";
import { openStore } from "@airlock/host/state/store/index.ts";
import type { Store } from "@airlock/host/state/store/types.ts";
import { type RunningRegistry, startRegistry } from "@airlock/registry";
import {
  type CraftedEntry,
  gzip,
  paxRecord,
  publishDocument,
  samplePluginFiles,
  samplePluginTarball,
  sha512Integrity,
  tarArchive,
} from "@airlock/sdk/package";
import { generateKeyPair, signIntegrity } from "@airlock/sdk/signing";
import { request } from "undici";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { tree } from "../support/fs-tree.ts";

const key = generateKeyPair();
let dir: string;
let store: Store;
let registry: RunningRegistry;
let publisher: string;

const lifecycle = (extra: { allowUnsigned?: string[] } = {}) =>
  createPluginLifecycle({
    store,
    dataDir: join(dir, "data"),
    registryUrl: registry.url,
    trust: { keys: [key.publicKeyPem], ...extra },
    hostVersion: "0.1.0",
    supportedSdk: "^1.0.0",
  });

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => (e as { code?: string }).code,
  );
}

async function publish(
  bytes: Uint8Array,
  manifest = samplePluginFiles({ namespace: "weather", version: "1.0.0" }).parsed,
  sign = true,
) {
  const doc = publishDocument(
    bytes,
    manifest,
    sign ? [signIntegrity(sha512Integrity(bytes), key.privateKeyPem)] : [],
  );
  const res = await request(`${registry.url}/${manifest.namespace}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${publisher}`, "content-type": "application/json" },
    body: JSON.stringify(doc),
  });
  const body = await res.body.json();
  if (res.statusCode !== 201) throw new Error(`publish failed: ${JSON.stringify(body)}`);
}

/** Plugin files on disk outside staging and locks: must stay empty after a refusal. */
const installedTree = (): string[] => {
  try {
    return tree(join(dir, "data", "plugins")).filter((p) => p !== ".locks" && p !== ".staging");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return [];
    throw err;
  }
};

beforeAll(async () => {
  registry = await startRegistry({ dataDir: mkdtempSync(join(tmpdir(), "airlock-hostile-reg-")), port: 0 });
  publisher = registry.storage.createToken("acme").token;
  const versions = ["1.0.0", "1.1.0", "1.2.0-beta.1"];
  for (const version of versions) {
    await publish(
      samplePluginTarball({ namespace: "weather", version }),
      samplePluginFiles({ namespace: "weather", version }).parsed,
    );
  }
});
afterAll(async () => {
  const data = registry.storage.dataDir;
  await registry.close();
  rmSync(data, { recursive: true, force: true });
});
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "airlock-hostile-install-"));
  store = await openStore({ kind: "sqlite", dataDir: join(dir, "data") });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const good = samplePluginFiles({ namespace: "evil", version: "1.0.0" });
const base: CraftedEntry[] = [
  { path: "package/package.json", body: good.packageJson },
  { path: "package/airlock.json", body: good.manifest },
  { path: "package/index.js", body: good.bundle },
];
const hostile: Array<[string, string, Uint8Array]> = [
  [
    "path traversal",
    "AIRLOCK_PACKAGE_PATH_TRAVERSAL",
    gzip(tarArchive([...base, { path: "package/../../../escape.js", body: "x" }])),
  ],
  [
    "pax path traversal",
    "AIRLOCK_PACKAGE_PATH_TRAVERSAL",
    gzip(tarArchive([{ path: "x", type: "x", body: paxRecord("path", "../../../escape.js") }, ...base])),
  ],
  [
    "absolute path",
    "AIRLOCK_PACKAGE_ABSOLUTE_PATH",
    gzip(tarArchive([{ path: "/tmp/airlock-escape.js", body: "x" }, ...base])),
  ],
  [
    "symlink",
    "AIRLOCK_PACKAGE_SYMLINK",
    gzip(tarArchive([{ path: "package/index.js", type: "2", linkpath: "/etc/passwd" }])),
  ],
  [
    "hardlink",
    "AIRLOCK_PACKAGE_HARDLINK",
    gzip(tarArchive([...base.slice(0, 2), { path: "package/index.js", type: "1", linkpath: "/etc/passwd" }])),
  ],
  [
    "device file",
    "AIRLOCK_PACKAGE_SPECIAL_FILE",
    gzip(tarArchive([...base, { path: "package/dev", type: "4" }])),
  ],
  [
    "duplicate entry",
    "AIRLOCK_PACKAGE_DUPLICATE_ENTRY",
    gzip(tarArchive([...base, { path: "package/airlock.json", body: good.manifest }])),
  ],
  [
    "unexpected file",
    "AIRLOCK_PACKAGE_UNEXPECTED_FILE",
    gzip(tarArchive([...base, { path: "package/postinstall.sh", body: "rm -rf /" }])),
  ],
  ["decompression bomb", "AIRLOCK_PACKAGE_INFLATED_TOO_LARGE", gzip(new Uint8Array(48 * 1024 * 1024))],
  [
    "entry flood",
    "AIRLOCK_PACKAGE_TOO_MANY_ENTRIES",
    gzip(
      tarArchive([
        ...Array.from(
          { length: 30 },
          (_, i): CraftedEntry => ({ path: `p${i}`, type: "x", body: paxRecord("comment", "x") }),
        ),
        ...base,
      ]),
    ),
  ],
];

describe("hostile tarballs through the installer", () => {
  for (const [name, code, bytes] of hostile) {
    it(`refuses a ${name} (${code}) even when unsigned packages are allowed, writing nothing outside staging`, async () => {
      const path = join(dir, "evil-1.0.0.tgz");
      writeFileSync(path, bytes);
      const lc = lifecycle();
      const failure = await lc.install(path, { allowUnsigned: true }).then(
        () => undefined,
        (e: unknown) => e as { code?: string; message?: string },
      );
      expect(failure?.code).toBe(code);
      expect(String(failure?.message)).not.toContain("PRIVATE KEY");
      expect(installedTree()).toEqual([]);
      expect(await store.listInstalledPlugins()).toEqual([]);
      expect(tree(dir).filter((p) => p.includes("escape"))).toEqual([]);
      const ok = join(dir, "ok.tgz");
      writeFileSync(ok, samplePluginTarball({ namespace: "healthy", version: "1.0.0" }));
      expect((await lc.install(ok, { allowUnsigned: true })).namespace).toBe("healthy");
    });
  }

  it("never takes modes from the archive: a setuid, world-writable bundle is written 0644", async () => {
    const path = join(dir, "modes.tgz");
    const entries = base.map((e) => ({ ...e, mode: 0o6777 }));
    writeFileSync(path, gzip(tarArchive(entries)));
    await lifecycle().install(path, { allowUnsigned: true });
    for (const file of ["index.js", "airlock.json", "package.json"]) {
      expect(statSync(join(dir, "data", "plugins", "evil", "1.0.0", file)).mode & 0o7777).toBe(0o644);
    }
  });

  it("gives distinct codes to the distinct attacks", () => {
    expect(new Set(hostile.map(([, code]) => code)).size).toBe(hostile.length - 1);
  });
});

describe("hostile registries and signatures", () => {
  it("resolves ^1.0.0 to the highest stable version, ignoring the prerelease", async () => {
    const report = await lifecycle().install("weather@^1.0.0");
    expect(report.version).toBe("1.1.0");
    expect(report.signer).toMatch(/^SHA256:/);
    const beta = await lifecycle().install("weather@^1.2.0-beta.0");
    expect(beta).toMatchObject({ version: "1.2.0-beta.1", previous: "1.1.0" });
  });

  it("upgrades from the registry it was installed from and rolls back", async () => {
    const lc = lifecycle();
    await lc.install("weather@1.0.0");
    expect(await lc.upgrade("weather", "^1.0.0")).toMatchObject({ version: "1.1.0", previous: "1.0.0" });
    expect(await lc.rollback("weather")).toMatchObject({ version: "1.0.0", previous: "1.1.0" });
    expect(await codeOf(lc.install("weather@^3.0.0"))).toBe("AIRLOCK_INSTALL_NO_MATCHING_VERSION");
    expect(await codeOf(lc.install("nonexistent@1"))).toBe("AIRLOCK_INSTALL_NOT_FOUND");
  });

  it("refuses a tarball whose bytes were swapped on the registry's disk (digest tampering)", async () => {
    await publish(
      samplePluginTarball({ namespace: "tampered", version: "1.0.0" }),
      samplePluginFiles({ namespace: "tampered", version: "1.0.0" }).parsed,
    );
    const row = registry.storage.getPackage("tampered")?.versions[0];
    if (row === undefined) throw new Error("fixture");
    const file = join(registry.storage.dataDir, "tarballs", row.sha512.slice(0, 2), row.sha512);
    const evil = samplePluginTarball({
      namespace: "tampered",
      version: "1.0.0",
      patch: (m) => {
        m.description = "evil";
      },
    });
    writeFileSync(file, evil);
    expect(readFileSync(file).length).toBe(evil.length);
    expect(await codeOf(lifecycle({ allowUnsigned: [registry.url] }).install("tampered@1.0.0"))).toBe(
      "AIRLOCK_INSTALL_INTEGRITY_MISMATCH",
    );
    expect(installedTree()).toEqual([]);
  });

  it("refuses a signature by a trusted key over a different digest, and an unknown signer unless the source is allowed", async () => {
    const bytes = samplePluginTarball({ namespace: "forged", version: "1.0.0" });
    const manifest = samplePluginFiles({ namespace: "forged", version: "1.0.0" }).parsed;
    const other = sha512Integrity(samplePluginTarball({ namespace: "forged", version: "9.9.9" }));
    const doc = publishDocument(bytes, manifest, [signIntegrity(other, key.privateKeyPem)]);
    await request(`${registry.url}/forged`, {
      method: "PUT",
      headers: { authorization: `Bearer ${publisher}`, "content-type": "application/json" },
      body: JSON.stringify(doc),
    }).then((r) => r.body.json());
    expect(await codeOf(lifecycle({ allowUnsigned: [registry.url] }).install("forged@1.0.0"))).toBe(
      "AIRLOCK_INSTALL_SIGNATURE_INVALID",
    );

    const stranger = generateKeyPair();
    const s = samplePluginTarball({ namespace: "stranger", version: "1.0.0" });
    const sdoc = publishDocument(s, samplePluginFiles({ namespace: "stranger", version: "1.0.0" }).parsed, [
      signIntegrity(sha512Integrity(s), stranger.privateKeyPem),
    ]);
    await request(`${registry.url}/stranger`, {
      method: "PUT",
      headers: { authorization: `Bearer ${publisher}`, "content-type": "application/json" },
      body: JSON.stringify(sdoc),
    }).then((r) => r.body.json());
    expect(await codeOf(lifecycle().install("stranger@1.0.0"))).toBe("AIRLOCK_INSTALL_UNKNOWN_SIGNER");
    expect(
      await codeOf(lifecycle({ allowUnsigned: ["http://other.example"] }).install("stranger@1.0.0")),
    ).toBe("AIRLOCK_INSTALL_UNKNOWN_SIGNER");
    expect((await lifecycle({ allowUnsigned: [registry.url] }).install("stranger@1.0.0")).signer).toBeNull();
  });

  it("refuses to let a registry package take a namespace installed from a file", async () => {
    const path = join(dir, "weather.tgz");
    writeFileSync(path, samplePluginTarball({ namespace: "weather", version: "0.9.0" }));
    const lc = lifecycle();
    await lc.install(path, { allowUnsigned: true });
    expect(await codeOf(lc.install("weather@^1.0.0"))).toBe("AIRLOCK_INSTALL_NAMESPACE_TAKEN");
    expect((await store.getActivation("weather"))?.active).toBe("0.9.0");
  });
});
