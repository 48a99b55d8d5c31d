// The host operations the surfaces use instead of the store: deleting an agent and revoking a
// token audit themselves and raise the host's events like every other operation, an unknown
// token id is "not found", and the console's routes reach them (a deletion made in the console
// is a `tools.changed` for that agent). Real host: SQLite store + in-process sandbox.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HostEventMap } from "../../contracts/host.ts";
import { createAdminApi } from "../../surfaces/http/app.ts";
import type { FixturePlugin } from "../pipeline/test-fixtures.ts";
import { openTestHost, type TestHost } from "../pipeline/test-host.ts";

const weather: FixturePlugin = {
  namespace: "weather",
  tools: [{ name: "forecast", code: "async () => 'sunny'", annotations: { readOnlyHint: true } }],
};

describe("admin operations the surfaces use", () => {
  let t: TestHost;
  let changes: Array<HostEventMap["tools.changed"]>;
  beforeEach(async () => {
    t = await openTestHost([weather]);
    await t.host.createAgent("ada");
    await t.host.setToolsEnabled("ada", { "weather:forecast": true });
    changes = [];
    t.host.on("tools.changed", (event) => changes.push(event));
  });
  afterEach(async () => t.close());

  const admin = async (action: string) =>
    (await t.host.queryAudit({ kind: "admin" })).filter((r) => r.action === action);

  it("deletes an agent, answers what it removed, audits it and raises tools.changed for it", async () => {
    await t.host.issueToken("agent", "ada", "client");
    const preview = await t.host.previewAgentRemoval("ada");
    expect(preview).toMatchObject({ agent: "ada", enabledTools: ["weather:forecast"] });
    expect(preview.tokens).toHaveLength(1);
    expect(await t.host.deleteAgent("ada")).toEqual(preview);
    expect(await t.host.getAgent("ada")).toBeNull();
    expect(await t.host.listTokens("ada")).toEqual([]);
    expect(changes).toEqual([{ agent: "ada", reason: "enablement" }]);
    expect((await admin("agent.delete")).map((r) => [r.agent, r.success])).toEqual([["ada", true]]);
    await expect(t.host.deleteAgent("ada")).rejects.toMatchObject({ code: "AIRLOCK_AGENT_NOT_FOUND" });
  });

  it("lists tokens without their values and revokes one; an unknown id is AIRLOCK_AUTH_TOKEN_NOT_FOUND", async () => {
    const issued = await t.host.issueToken("agent", "ada", "client");
    const listed = await t.host.listTokens("ada");
    expect(listed.map((v) => v.id)).toEqual([issued.id]);
    expect(JSON.stringify(listed)).not.toContain(issued.token);
    expect((await t.host.revokeToken(issued.id)).id).toBe(issued.id);
    expect(await t.host.authenticate(issued.token)).toBeNull();
    await expect(t.host.revokeToken(issued.id)).rejects.toMatchObject({
      code: "AIRLOCK_AUTH_TOKEN_NOT_FOUND",
      status: 404,
    });
    const errors = (await admin("token.revoke")).map((r) => r.error ?? "none");
    expect(errors.sort()).toEqual(["AIRLOCK_AUTH_TOKEN_NOT_FOUND", "none"]);
  });

  it("raises tools.changed when the console deletes an agent (it no longer bypasses the host)", async () => {
    const app = createAdminApi(t.host);
    const op = (await t.host.issueToken("operator", undefined, "test")).token;
    const res = await app.request("/api/instances/ada", {
      method: "DELETE",
      headers: { authorization: `Bearer ${op}` },
    });
    expect(res.status).toBe(200);
    expect(changes).toEqual([{ agent: "ada", reason: "enablement" }]);
    expect((await admin("agent.delete")).map((r) => r.agent)).toEqual(["ada"]);
  });

  it("reads installed versions: the active one by default, null for an unknown namespace", async () => {
    const active = await t.host.getInstalledVersion("weather");
    expect(active).toMatchObject({ namespace: "weather", active: true });
    expect((await t.host.listActiveVersions()).map((v) => v.namespace)).toEqual(["weather"]);
    expect(await t.host.getInstalledVersion("nope")).toBeNull();
  });
});
