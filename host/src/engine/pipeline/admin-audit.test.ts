// Operator actions through the library API leave admin audit entries naming what changed,
// never a secret value or a token; failed actions are recorded with their code.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestHost, type TestHost } from "./test-host.ts";

const SECRET = "pw-0123456789-very-secret";
let t: TestHost;
beforeEach(async () => {
  t = await openTestHost([
    {
      namespace: "mail",
      tools: [
        {
          name: "send",
          code: "async () => 'sent'",
          requiredSecrets: [{ key: "password", type: "text", optional: false, sensitive: true }],
        },
      ],
    },
  ]);
});
afterEach(async () => t.close());

describe("admin audit", () => {
  it("records agent, level, token, enablement and secret changes without values", async () => {
    await t.host.createAgent("ada");
    await t.host.setKnowledgeLevel("ada", "write");
    const { id, token } = await t.host.issueToken("agent", "ada", "laptop");
    await t.host.setToolsEnabled("ada", { "mail:send": true });
    await t.host.setSecrets("ada", { password: SECRET });
    await t.host.deleteSecret("ada", "password");
    const entries = (await t.host.queryAudit({ kind: "admin" })).reverse();
    expect(entries.map((e) => [e.action, e.agent, e.success])).toEqual([
      ["agent.create", "ada", true],
      ["agent.knowledge_level", "ada", true],
      ["token.issue", "ada", true],
      ["tools.set_enabled", "ada", true],
      ["secrets.set", "ada", true],
      ["secrets.delete", "ada", true],
    ]);
    expect(entries[2]?.details).toEqual({ role: "agent", id });
    expect(entries[4]?.details).toEqual({ keys: ["password"] });
    const all = JSON.stringify(entries);
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(token);
  });

  it("records a refused action with its code", async () => {
    await t.host.createAgent("ada");
    await expect(t.host.setSecrets("ada", { nope: "x" })).rejects.toMatchObject({
      code: "AIRLOCK_SECRET_UNKNOWN_KEY",
    });
    await expect(t.host.plugins.rollback("mail")).rejects.toMatchObject({
      code: "AIRLOCK_INSTALL_NO_PREVIOUS",
    });
    const entries = await t.host.queryAudit({ kind: "admin" });
    expect(entries.find((e) => e.action === "secrets.set")).toMatchObject({
      success: false,
      error: "AIRLOCK_SECRET_UNKNOWN_KEY",
    });
    expect(entries.find((e) => e.action === "plugin.rollback")).toMatchObject({
      plugin: "mail",
      success: false,
      error: "AIRLOCK_INSTALL_NO_PREVIOUS",
    });
  });
});
