// Hostile: moving a plugin backwards. An operator (or an attacker with a stale tarball) installs
// a lower version, the same precedence with other build metadata, or an unasked-for prerelease
// over the active version. Real host (SQLite, in-process sandbox, real installer): each is
// refused with its exact code and audited as a failed plugin.install, the active version keeps
// serving, and `allowDowngrade` / `allowPrerelease` / rollback stay the operator's ways through.
import { samplePluginTarball } from "@airlock/sdk/package";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";

let t: TestHost;
beforeEach(async () => {
  t = await openTestHost([]);
  await t.host.createAgent("ada");
});
afterEach(async () => t.close());

const tarball = (version: string) => samplePluginTarball({ namespace: "echoer", version, engine: ">=0.1.0" });
const install = (version: string, opts: { allowDowngrade?: boolean; allowPrerelease?: boolean } = {}) =>
  t.host.plugins.installTarball(tarball(version), `/tmp/echoer-${version}.tgz`, {
    allowUnsigned: true,
    ...opts,
  });
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: unknown) => (e as { code?: string }).code,
  );

/** The active version still serves, and the refusal is in the audit as a failed install. */
async function expectServing(version: string, refused: string[]): Promise<void> {
  expect((await t.host.listTools()).map((x) => `${x.id}@${x.version}`)).toEqual([`echoer:echo@${version}`]);
  const out = await t.host.callTool("ada", "echoer:echo", { text: "still here" });
  expect(out.errorCode).toBeUndefined();
  expect(out.result.content).toEqual([{ type: "text", text: '{"text":"still here"}' }]);
  const failed = (await t.host.queryAudit({ kind: "admin" })).filter(
    (a) => a.action === "plugin.install" && a.success === false,
  );
  expect(failed.map((a) => a.error)).toEqual(refused);
}

describe("versions only move forward", () => {
  beforeEach(async () => {
    await install("1.2.0");
    await t.host.setToolsEnabled("ada", { "echoer:echo": true });
  });

  it("refuses a lower version with AIRLOCK_INSTALL_DOWNGRADE, keeping 1.2.0 active", async () => {
    expect(await codeOf(install("1.1.0"))).toBe("AIRLOCK_INSTALL_DOWNGRADE");
    await expectServing("1.2.0", ["AIRLOCK_INSTALL_DOWNGRADE"]);
    expect((await (await t.store()).listInstalledPlugins("echoer")).map((r) => r.version)).toEqual(["1.2.0"]);
  });

  it("refuses the same precedence with other build metadata (1.2.0+meta over 1.2.0)", async () => {
    expect(await codeOf(install("1.2.0+meta"))).toBe("AIRLOCK_INSTALL_DOWNGRADE");
    await expectServing("1.2.0", ["AIRLOCK_INSTALL_DOWNGRADE"]);
  });

  it("refuses the previous version re-installed after an upgrade; rollback is the way back", async () => {
    await install("1.3.0");
    expect(await codeOf(install("1.2.0"))).toBe("AIRLOCK_INSTALL_DOWNGRADE");
    await expectServing("1.3.0", ["AIRLOCK_INSTALL_DOWNGRADE"]);
    expect((await t.host.plugins.rollback("echoer")).version).toBe("1.2.0");
  });

  it("refuses an unasked-for prerelease (1.2.1-0) with AIRLOCK_INSTALL_PRERELEASE", async () => {
    expect(await codeOf(install("1.2.1-0"))).toBe("AIRLOCK_INSTALL_PRERELEASE");
    await expectServing("1.2.0", ["AIRLOCK_INSTALL_PRERELEASE"]);
    expect((await install("1.2.1-0", { allowPrerelease: true })).version).toBe("1.2.1-0");
  });

  it("accepts a downgrade the operator asks for, and a re-install of the active version", async () => {
    expect((await install("1.2.0")).version).toBe("1.2.0");
    expect((await install("1.1.0", { allowDowngrade: true })).version).toBe("1.1.0");
    await expectServing("1.1.0", []);
  });
});
