// The host's plugin lifecycle end to end: real tarballs through the installer, the catalogue
// following every change, and runs that started before a change keeping their snapshot rules.
import { samplePluginTarball } from "@airlock/sdk/package";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestHost, type TestHost } from "./test-host.ts";

let t: TestHost;
beforeEach(async () => {
  t = await openTestHost([]);
  await t.host.createAgent("ada");
});
afterEach(async () => t.close());

const tarball = (version: string) => samplePluginTarball({ namespace: "echoer", version, engine: ">=0.1.0" });

describe("plugin lifecycle through the host", () => {
  it("installs a tarball whose tools appear in the catalogue, off until enabled, then callable", async () => {
    const report = await t.host.plugins.installTarball(tarball("1.0.0"), "/tmp/echoer-1.0.0.tgz", {
      allowUnsigned: true,
    });
    expect(report).toMatchObject({ namespace: "echoer", version: "1.0.0", tools: ["echoer:echo"] });
    expect((await t.host.listTools()).map((x) => x.id)).toEqual(["echoer:echo"]);
    expect((await t.host.listAgentTools("ada"))[0]).toMatchObject({ enabled: false, served: false });
    await t.host.setToolsEnabled("ada", { "echoer:echo": true });
    const out = await t.host.callTool("ada", "echoer__echo", { text: "hello" });
    expect(out.result.content).toEqual([{ type: "text", text: '{"text":"hello"}' }]);
  });

  it("keeps enablement across an upgrade and a rollback, serving the active version", async () => {
    await t.host.plugins.installTarball(tarball("1.0.0"), "/tmp/a.tgz", { allowUnsigned: true });
    await t.host.setToolsEnabled("ada", { "echoer:echo": true });
    await t.host.plugins.installTarball(tarball("1.1.0"), "/tmp/b.tgz", { allowUnsigned: true });
    expect((await t.host.listAgentTools("ada"))[0]).toMatchObject({ version: "1.1.0", enabled: true });
    expect((await t.host.callTool("ada", "echoer:echo", { text: "x" })).errorCode).toBeUndefined();
    await t.host.plugins.rollback("echoer");
    expect((await t.host.listTools())[0]?.version).toBe("1.0.0");
    expect((await t.host.callTool("ada", "echoer:echo", { text: "x" })).errorCode).toBeUndefined();
  });

  it("answers a call in a run that outlived an uninstall with AIRLOCK_TOOL_UNAVAILABLE", async () => {
    await t.host.plugins.installTarball(tarball("1.0.0"), "/tmp/a.tgz", { allowUnsigned: true });
    await t.host.setToolsEnabled("ada", { "echoer:echo": true });
    const run = await t.host.startRun({ agent: "ada" });
    await t.host.plugins.uninstall("echoer");
    expect(await t.host.listTools()).toEqual([]);
    const out = await run.call("echoer:echo", { text: "x" });
    expect(out.errorCode).toBe("AIRLOCK_TOOL_UNAVAILABLE");
    expect(out.result.isError).toBe(true);
  });

  it("reloads the catalogue even when a lifecycle call fails", async () => {
    const error = await t.host.plugins.rollback("echoer").then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "AIRLOCK_INSTALL_NOT_INSTALLED" });
    expect(await t.host.listTools()).toEqual([]);
  });

  it("raises tools.changed for lifecycle changes (every agent) and enablement or secrets (one agent)", async () => {
    const seen: Array<{ agent: string | null; reason: string }> = [];
    const off = t.host.on("tools.changed", (change) => seen.push(change));
    await t.host.plugins.installTarball(tarball("1.0.0"), "/tmp/a.tgz", { allowUnsigned: true });
    await t.host.setToolsEnabled("ada", { "echoer:echo": true });
    await t.host.plugins.uninstall("echoer");
    off();
    await t.host.createAgent("bob");
    expect(seen).toEqual([
      { agent: null, reason: "catalogue" },
      { agent: "ada", reason: "enablement" },
      { agent: null, reason: "catalogue" },
    ]);
  });
});
