import { statSync } from "node:fs";
import { join } from "node:path";
import { generateKeyPair, signIntegrity } from "@airlock/sdk/signing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Fixture, fixture, tree } from "./test-support.ts";

let f: Fixture;
beforeEach(async () => {
  f = await fixture();
});
afterEach(async () => {
  await f.close();
});

const codeOf = (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => (e as { code?: string }).code,
  );

describe("plugin lifecycle: install", () => {
  it("installs a signed .tgz: files with our modes, a store record, the version active", async () => {
    const { path } = f.tarball({ namespace: "weather", version: "1.0.0" });
    const report = await f.lifecycle.install(path);
    expect(report).toMatchObject({
      namespace: "weather",
      version: "1.0.0",
      previous: null,
      tools: ["weather:echo"],
    });
    expect(report.signer).toMatch(/^SHA256:/);
    const dir = join(f.dataDir, "plugins/weather/1.0.0");
    expect(
      tree(join(f.dataDir, "plugins")).filter((p) => !p.startsWith(".staging") && !p.startsWith(".locks")),
    ).toEqual([
      "weather",
      "weather/1.0.0",
      "weather/1.0.0/airlock.json",
      "weather/1.0.0/index.js",
      "weather/1.0.0/package.json",
    ]);
    expect(statSync(join(dir, "index.js")).mode & 0o777).toBe(0o644);
    expect((await f.store.getActivation("weather"))?.active).toBe("1.0.0");
    // recorded relative to the data dir, so a moved data dir still finds it
    expect((await f.store.getInstalledPlugin("weather", "1.0.0"))?.path).toBe("plugins/weather/1.0.0");
    expect(await f.lifecycle.list()).toMatchObject([
      { namespace: "weather", active: "1.0.0", versions: ["1.0.0"] },
    ]);
  });

  it("refuses an unsigned package unless the operator allows it, writing nothing", async () => {
    const { path } = f.tarball({ namespace: "weather", version: "1.0.0", signer: null });
    expect(await codeOf(f.lifecycle.install(path))).toBe("AIRLOCK_INSTALL_UNSIGNED");
    expect(tree(join(f.dataDir, "plugins", "weather"))).toEqual([]);
    const report = await f.lifecycle.install(path, { allowUnsigned: true });
    expect(report.signer).toBeNull();
  });

  it("refuses an unknown signer unless unsigned packages are allowed for that source", async () => {
    const stranger = generateKeyPair();
    const { path } = f.tarball({ namespace: "weather", version: "1.0.0", signer: stranger });
    expect(await codeOf(f.lifecycle.install(path))).toBe("AIRLOCK_INSTALL_UNKNOWN_SIGNER");
    const other = f.make({ trust: { keys: [f.key.publicKeyPem], allowUnsigned: ["file:/elsewhere.tgz"] } });
    expect(await codeOf(other.install(path))).toBe("AIRLOCK_INSTALL_UNKNOWN_SIGNER");
    const allowed = f.make({ trust: { keys: [f.key.publicKeyPem], allowUnsigned: [`file:${path}`] } });
    expect((await allowed.install(path)).signer).toBeNull();
  });

  it("refuses a trusted key's signature over another digest even when unsigned packages are allowed", async () => {
    const { path } = f.tarball({ namespace: "weather", version: "1.0.0" });
    const forged = signIntegrity(`sha512-${"A".repeat(86)}==`, f.key.privateKeyPem);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${path}.sig`, JSON.stringify(forged));
    expect(await codeOf(f.lifecycle.install(path, { allowUnsigned: true }))).toBe(
      "AIRLOCK_INSTALL_SIGNATURE_INVALID",
    );
    expect(await f.store.listInstalledPlugins("weather")).toEqual([]);
  });

  it("refuses a different signer for a new version of an installed plugin", async () => {
    const second = generateKeyPair();
    const g = f.make({ trust: { keys: [f.key.publicKeyPem, second.publicKeyPem] } });
    await g.install(f.tarball({ namespace: "weather", version: "1.0.0" }).path);
    const next = f.tarball({ namespace: "weather", version: "1.1.0", signer: second });
    expect(await codeOf(g.install(next.path))).toBe("AIRLOCK_INSTALL_SIGNER_CHANGED");
    const unsigned = f.tarball({ namespace: "weather", version: "1.2.0", signer: null });
    expect(await codeOf(g.install(unsigned.path, { allowUnsigned: true }))).toBe(
      "AIRLOCK_INSTALL_SIGNER_CHANGED",
    );
    expect((await f.store.getActivation("weather"))?.active).toBe("1.0.0");
  });

  it("lets a plugin installed unsigned move to a trusted signer", async () => {
    await f.lifecycle.install(f.tarball({ namespace: "weather", version: "1.0.0", signer: null }).path, {
      allowUnsigned: true,
    });
    const signed = await f.lifecycle.install(f.tarball({ namespace: "weather", version: "1.1.0" }).path);
    expect(signed.signer).toMatch(/^SHA256:/);
  });

  it("refuses the same version with different contents, and re-installing identical bytes is a no-op", async () => {
    const first = f.tarball({ namespace: "weather", version: "1.0.0" });
    await f.lifecycle.install(first.path);
    expect((await f.lifecycle.install(first.path)).version).toBe("1.0.0");
    const changed = f.tarball({
      namespace: "weather",
      version: "1.0.0",
      file: "changed.tgz",
      patch: (m) => {
        m.description = "other";
      },
    });
    expect(await codeOf(f.lifecycle.install(changed.path))).toBe("AIRLOCK_INSTALL_VERSION_CONFLICT");
  });

  it("serialises two concurrent installs of the same plugin", async () => {
    const a = f.tarball({ namespace: "weather", version: "1.0.0" });
    const b = f.tarball({ namespace: "weather", version: "1.1.0" });
    // Either may take the lock first; allowDowngrade lets both land whatever the order.
    const anyOrder = { allowDowngrade: true };
    const [ra, rb] = await Promise.all([
      f.lifecycle.install(a.path, anyOrder),
      f.lifecycle.install(b.path, anyOrder),
    ]);
    expect([ra.version, rb.version].sort()).toEqual(["1.0.0", "1.1.0"]);
    const activation = await f.store.getActivation("weather");
    expect([activation?.active, activation?.previous].sort()).toEqual(["1.0.0", "1.1.0"]);
    expect(tree(join(f.dataDir, "plugins", ".staging"))).toEqual([]);
    expect(tree(join(f.dataDir, "plugins", ".locks"))).toEqual([]);
    const same = await Promise.all([
      f.lifecycle.install(a.path, anyOrder),
      f.lifecycle.install(a.path, anyOrder),
    ]);
    expect(same.map((r) => r.version)).toEqual(["1.0.0", "1.0.0"]);
    expect((await f.store.listInstalledPlugins("weather")).map((r) => r.version).sort()).toEqual([
      "1.0.0",
      "1.1.0",
    ]);
  });

  it("leaves the previous version active and no files behind when an install is interrupted", async () => {
    await f.lifecycle.install(f.tarball({ namespace: "weather", version: "1.0.0" }).path);
    const failing = f.make({
      faults: {
        afterCommitted: () => {
          throw new Error("disk full");
        },
      },
    });
    await expect(failing.install(f.tarball({ namespace: "weather", version: "1.1.0" }).path)).rejects.toThrow(
      "disk full",
    );
    expect((await f.store.getActivation("weather"))?.active).toBe("1.0.0");
    expect(tree(join(f.dataDir, "plugins", "weather"))).toEqual([
      "1.0.0",
      "1.0.0/airlock.json",
      "1.0.0/index.js",
      "1.0.0/package.json",
    ]);
    expect(tree(join(f.dataDir, "plugins", ".staging"))).toEqual([]);
  });
});

describe("plugin lifecycle: compatibility", () => {
  it("refuses an engine range that excludes the host, prerelease hosts included", async () => {
    const { path } = f.tarball({ namespace: "weather", version: "1.0.0", engine: "<2.0.0" });
    expect(await codeOf(f.make({ hostVersion: "2.0.0-alpha.1" }).install(path))).toBe(
      "AIRLOCK_INSTALL_ENGINE_UNSUPPORTED",
    );
    expect(await codeOf(f.make({ hostVersion: "2.0.0" }).install(path))).toBe(
      "AIRLOCK_INSTALL_ENGINE_UNSUPPORTED",
    );
    expect((await f.make({ hostVersion: "1.9.9" }).install(path)).version).toBe("1.0.0");
  });

  it("refuses an SDK prerelease unless the supported range names it", async () => {
    const { path } = f.tarball({ namespace: "weather", version: "1.0.0", sdk: "1.1.0-rc.1" });
    expect(await codeOf(f.lifecycle.install(path))).toBe("AIRLOCK_INSTALL_SDK_UNSUPPORTED");
    const old = f.tarball({ namespace: "other", version: "1.0.0", sdk: "2.0.0" });
    expect(await codeOf(f.lifecycle.install(old.path))).toBe("AIRLOCK_INSTALL_SDK_UNSUPPORTED");
    expect((await f.make({ supportedSdk: "^1.0.0 || 1.1.0-rc.1" }).install(path)).version).toBe("1.0.0");
  });
});

describe("plugin lifecycle: rollback and uninstall", () => {
  it("rolls back to the previous version in one step, and forward again", async () => {
    await f.lifecycle.install(f.tarball({ namespace: "weather", version: "1.0.0" }).path);
    expect(await codeOf(f.lifecycle.rollback("weather"))).toBe("AIRLOCK_INSTALL_NO_PREVIOUS");
    const up = await f.lifecycle.install(f.tarball({ namespace: "weather", version: "1.1.0" }).path);
    expect(up).toMatchObject({ version: "1.1.0", previous: "1.0.0" });
    expect(await f.lifecycle.rollback("weather")).toMatchObject({ version: "1.0.0", previous: "1.1.0" });
    expect(await f.lifecycle.rollback("weather")).toMatchObject({ version: "1.1.0", previous: "1.0.0" });
    expect(await codeOf(f.lifecycle.rollback("nothing"))).toBe("AIRLOCK_INSTALL_NOT_INSTALLED");
  });

  it("keeps only the active and previous versions on disk after a third install", async () => {
    for (const v of ["1.0.0", "1.1.0", "1.2.0"])
      await f.lifecycle.install(f.tarball({ namespace: "weather", version: v }).path);
    expect((await f.store.listInstalledPlugins("weather")).map((r) => r.version).sort()).toEqual([
      "1.1.0",
      "1.2.0",
    ]);
    expect(tree(join(f.dataDir, "plugins", "weather")).filter((p) => !p.includes("/"))).toEqual([
      "1.1.0",
      "1.2.0",
    ]);
  });

  it("uninstalls: tools leave every agent, knowledge and secrets are kept and reported", async () => {
    await f.lifecycle.install(
      f.tarball({ namespace: "weather", version: "1.0.0", secrets: ["api_key"] }).path,
    );
    for (const agent of ["ada", "bob"]) {
      await f.store.ensureAgent(agent);
      await f.store.setToolEnabled(agent, "weather:echo", true);
      await f.store.putSecret({
        agent,
        key: "api_key",
        ciphertext: "opaque",
        updatedAt: new Date().toISOString(),
      });
    }
    await f.store.putKnowledgeDoc({
      id: "d1",
      agent: "ada",
      filename: "n.md",
      content: "forecast",
      mime: "text/markdown",
      writer: "plugin:weather",
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    });
    const report = await f.lifecycle.uninstall("weather");
    expect(report).toEqual({
      namespace: "weather",
      removedVersions: ["1.0.0"],
      disabledForAgents: 2,
      kept: { knowledgeDocuments: 1, secrets: ["api_key"] },
      purged: null,
    });
    expect(await f.store.listEnabledTools("ada")).toEqual([]);
    expect(await f.store.getSecret("bob", "api_key")).not.toBeNull();
    expect(await f.store.getActivation("weather")).toBeNull();
    expect(tree(join(f.dataDir, "plugins", "weather"))).toEqual([]);
    expect(await codeOf(f.lifecycle.uninstall("weather"))).toBe("AIRLOCK_INSTALL_NOT_INSTALLED");
  });

  it("purges knowledge it wrote and secrets only it declared", async () => {
    await f.lifecycle.install(
      f.tarball({ namespace: "weather", version: "1.0.0", secrets: ["api_key", "shared_token"] }).path,
    );
    await f.lifecycle.install(
      f.tarball({ namespace: "maps", version: "1.0.0", secrets: ["shared_token"] }).path,
    );
    await f.store.ensureAgent("ada");
    for (const key of ["api_key", "shared_token"]) {
      await f.store.putSecret({
        agent: "ada",
        key,
        ciphertext: "opaque",
        updatedAt: new Date().toISOString(),
      });
    }
    const now = new Date().toISOString();
    const doc = {
      agent: "ada",
      filename: "n.md",
      content: "x",
      mime: "text/plain",
      createdAt: now,
      updatedAt: now,
    };
    await f.store.putKnowledgeDoc({ ...doc, id: "mine", writer: "plugin:weather" });
    await f.store.putKnowledgeDoc({ ...doc, id: "theirs", writer: "agent" });
    const report = await f.lifecycle.uninstall("weather", { purge: true });
    expect(report.purged).toEqual({ knowledgeDocuments: 1, secrets: ["api_key"] });
    expect(report.kept).toEqual({ knowledgeDocuments: 0, secrets: ["shared_token"] });
    expect(await f.store.getSecret("ada", "api_key")).toBeNull();
    expect(await f.store.getSecret("ada", "shared_token")).not.toBeNull();
    expect(await f.store.getKnowledgeDoc("ada", "theirs")).not.toBeNull();
    expect(await f.store.getKnowledgeDoc("ada", "mine")).toBeNull();
  });
});
