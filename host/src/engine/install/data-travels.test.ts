// Data that travels: what the store records about installed plugins names nothing of one
// machine. A SQLite data dir moved to another path serves every plugin call (the store records
// each version's folder relative to the data dir), and a PostgreSQL replica started with an
// empty data dir runs a signed plugin whose key another replica was told to trust (the key is
// kept in the store with its namespace); a key forgotten on one replica is forgotten for all.
// Real hosts: SQLite and PostgreSQL stores, the in-process sandbox.
import { randomBytes } from "node:crypto";
import { mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { samplePluginTarball, sha512Integrity } from "@airlock/sdk/package";
import { generateKeyPair, keyIdOf, signIntegrity } from "@airlock/sdk/signing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describePg, PG_URL } from "../../../../test/support/postgres.ts";
import type { AirlockHost } from "../../contracts/host.ts";
import { createHost } from "../../host.ts";
import { dropSchemas, freshSchemaName } from "../../state/store/postgres/test-schema.ts";

const publisher = generateKeyPair();

/** A signed sample plugin: its tarball and the signature of its integrity by `publisher`. */
function signedPlugin(namespace: string, version: string) {
  const bytes = samplePluginTarball({ namespace, version });
  return { bytes, signatures: [signIntegrity(sha512Integrity(bytes), publisher.privateKeyPem)] };
}

async function echo(host: AirlockHost, tool: string) {
  const out = await host.callTool("ada", tool, { text: "hi" });
  return { code: out.errorCode, content: out.result.content };
}
const ECHOED = { code: undefined, content: [{ type: "text", text: '{"text":"hi"}' }] };

describe("a SQLite data dir moved to another path", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "airlock-travels-"));
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  it("serves every plugin call, the rolled-back-to version included", async () => {
    const first = join(root, "first");
    const options = { sandbox: { mode: "in-process" as const }, onInternalError: () => undefined };
    const a = await createHost({ ...options, dataDir: first });
    for (const version of ["1.0.0", "1.1.0"]) {
      const { bytes, signatures } = signedPlugin("weather", version);
      await a.plugins.installTarball(bytes, `/tmp/weather-${version}.tgz`, {
        signatures,
        trustKeys: [publisher.publicKeyPem],
      });
    }
    const { bytes } = signedPlugin("maps", "1.0.0");
    await a.plugins.installTarball(bytes, "/tmp/maps.tgz", { allowUnsigned: true });
    await a.createAgent("ada");
    await a.setToolsEnabled("ada", { "weather:echo": true, "maps:echo": true });
    expect(await echo(a, "weather:echo")).toEqual(ECHOED);
    await a.close();

    const moved = join(root, "somewhere", "else");
    await rm(join(root, "somewhere"), { recursive: true, force: true });
    await mkdtemp(join(root, "somewhere")).then((dir) => rename(dir, join(root, "somewhere")));
    await rename(first, moved);
    const b = await createHost({ ...options, dataDir: moved });
    try {
      expect(await echo(b, "weather:echo")).toEqual(ECHOED);
      expect(await echo(b, "maps:echo")).toEqual(ECHOED);
      expect((await b.plugins.rollback("weather")).version).toBe("1.0.0");
      expect(await echo(b, "weather:echo")).toEqual(ECHOED);
    } finally {
      await b.close();
    }
  });
});

describePg("a PostgreSQL replica started with an empty data dir", () => {
  const schema = freshSchemaName();
  const dirs: string[] = [];
  const hosts: AirlockHost[] = [];
  const masterKey = randomBytes(32).toString("base64");
  /** A replica of its own data dir (empty), with no trust roots of its own. */
  const replica = async (): Promise<AirlockHost> => {
    const dataDir = await mkdtemp(join(tmpdir(), "airlock-replica-"));
    dirs.push(dataDir);
    const host = await createHost({
      dataDir,
      store: { kind: "postgres", url: PG_URL, schema },
      sandbox: { mode: "in-process" },
      masterKey,
      onInternalError: () => undefined,
    });
    hosts.push(host);
    return host;
  };
  afterAll(async () => {
    for (const host of hosts) await host.close();
    await dropSchemas(PG_URL, [schema]);
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("runs a signed plugin whose key another replica was told to trust; a key forgotten on one is forgotten for all", async () => {
    const a = await replica();
    const { bytes, signatures } = signedPlugin("weather", "1.0.0");
    await a.plugins.installTarball(bytes, "/tmp/weather.tgz", {
      signatures,
      trustKeys: [publisher.publicKeyPem],
    });
    await a.createAgent("ada");
    await a.setToolsEnabled("ada", { "weather:echo": true });
    expect(await echo(a, "weather:echo")).toEqual(ECHOED);

    const b = await replica();
    expect(await echo(b, "weather:echo")).toEqual(ECHOED);
    const keyId = keyIdOf(publisher.publicKeyPem);
    expect((await b.plugins.trustedKeys("weather")).map((k) => k.keyId)).toEqual([keyId]);

    // forgotten on b: gone for a too, audited; a new replica no longer rebuilds the signed version
    expect(await b.plugins.forgetTrustedKey("weather", keyId)).toMatchObject({ namespace: "weather", keyId });
    expect(await a.plugins.trustedKeys("weather")).toEqual([]);
    const audit = (await a.queryAudit({ kind: "admin" })).filter((r) => r.action === "plugin.trust.forget");
    expect(audit.map((r) => [r.plugin, r.success, r.details?.keyId])).toEqual([["weather", true, keyId]]);
    await expect(b.plugins.forgetTrustedKey("weather", keyId)).rejects.toMatchObject({
      code: "AIRLOCK_INSTALL_KEY_NOT_TRUSTED",
    });
    const c = await replica();
    expect((await echo(c, "weather:echo")).code).toBe("AIRLOCK_INSTALL_UNKNOWN_SIGNER");
  });
});
