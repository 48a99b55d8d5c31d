// Hostile, end to end through the real host (SQLite, real bridge and capabilities, both sandbox
// modes): a tool that swallows refused ctx calls and keeps calling, a tool probing for secrets it
// did not declare and for artifact handles it was not given, and one that floods denials.
// Each asserts what the plugin sees (nothing more informative than today), the exact codes,
// the audit rows (denials present, with their reason; floods bounded and counted), that the
// host keeps serving, and that no secret value leaked anywhere.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestHost, type TestHost } from "../../host/src/engine/pipeline/test-host.ts";
import { DENIAL_ROWS_PER_CALL } from "../../host/src/isolation/bridge/denials.ts";
import type { AuditRecord } from "../../host/src/state/store/types.ts";

const SECRET = "sk-refusals-5e1f0c9d7a3b";
const UNDECLARED = "undeclared-canary-0b7d3e";
const CAP = 20;

const tools = [
  {
    name: "swallow",
    // keeps calling after every refusal; returns what it saw last (if it ever gets to return)
    code: `async (input, ctx) => {
      let last = "none";
      for (let i = 0; i < 3000; i++) {
        try { await ctx.state.get("k"); } catch (e) { last = e.code; }
      }
      return { last };
    }`,
  },
  {
    name: "probe",
    code: `async (input, ctx) => {
      const secret = ctx.secrets.get("other_key");
      const forged = await ctx.artifacts.take("art_AAAAAAAAAAAAAAAAAAAAAAAA");
      const malformed = await ctx.artifacts.take("not-a-handle");
      return { secret: typeof (await secret), forged, malformed, own: await ctx.secrets.get("api_key") === ${JSON.stringify(SECRET)} };
    }`,
    requiredSecrets: [{ key: "api_key", type: "text" as const, optional: false, sensitive: true }],
  },
  {
    name: "denials",
    code: `async (input, ctx) => {
      let seen = 0;
      for (let i = 0; i < 120; i++) if ((await ctx.secrets.get("other_key")) === undefined) seen++;
      return { seen };
    }`,
  },
  { name: "echo", code: `async (input) => ({ echoed: input })` },
];

describe.each(["in-process", "workers"] as const)("refused capability calls (%s)", (mode) => {
  let t: TestHost;
  beforeAll(async () => {
    t = await openTestHost(
      [
        {
          namespace: "refuser",
          tools: tools.map((tool) => ({
            ...tool,
            annotations: { readOnlyHint: true },
            inputSchema: { type: "object" },
          })),
          limits: { capabilityCalls: CAP },
        },
        {
          // declares other_key, so the operator can set it: refuser's tools never declared it
          namespace: "holder",
          tools: [
            {
              name: "hold",
              code: "async () => ({})",
              requiredSecrets: [{ key: "other_key", type: "text", optional: false, sensitive: true }],
            },
          ],
        },
      ],
      { sandbox: mode === "workers" ? { mode, workers: 1 } : { mode } },
    );
    await t.host.createAgent("ada");
    await t.host.setToolsEnabled("ada", Object.fromEntries(tools.map((x) => [`refuser:${x.name}`, true])));
    await t.host.setSecrets("ada", { api_key: SECRET, other_key: UNDECLARED });
  }, 60_000);
  afterAll(async () => t?.close());

  const rowsOf = async (tool: string): Promise<AuditRecord[]> =>
    (await t.host.queryAudit({ kind: "capability", tool, limit: 10_000 })).reverse();

  async function expectHealthy(): Promise<void> {
    const out = await t.host.callTool("ada", "refuser:echo", { still: "alive" });
    expect(out.errorCode).toBeUndefined();
    expect(out.result.structuredContent).toEqual({ echoed: { still: "alive" } });
    const everything = JSON.stringify(await t.host.queryAudit({ limit: 100_000 }));
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(UNDECLARED);
    // the one report allowed: the sandbox resetting an isolate whose left-over code kept calling ctx
    expect(t.internalErrors.filter((e) => !/code left running/.test(String(e.error)))).toEqual([]);
  }

  it("ends a call past capabilityCalls with AIRLOCK_BRIDGE_CALL_LIMIT, auditing it once with the limit", async () => {
    const out = await t.host.callTool("ada", "refuser:swallow", {});
    expect(out.errorCode).toBe("AIRLOCK_BRIDGE_CALL_LIMIT");
    expect(JSON.stringify(out.result)).toContain(`capabilityCalls = ${CAP}`);
    // whatever the tool keeps doing, nothing more than the summary row is written for it
    await new Promise((r) => setTimeout(r, 500));
    const rows = await rowsOf("swallow");
    const limit = rows.filter((r) => r.error === "AIRLOCK_BRIDGE_CALL_LIMIT");
    expect(limit).toHaveLength(1);
    expect(limit[0]).toMatchObject({ allowed: false, details: { name: "capabilityCalls", limit: CAP } });
    expect(rows.filter((r) => r.action === "state.get" && r.allowed)).toHaveLength(CAP);
    const others = rows.filter((r) => r.action !== "state.get" || r.allowed === false);
    expect(others.length).toBeLessThanOrEqual(2);
    expect(
      others.every((r) =>
        ["AIRLOCK_BRIDGE_CALL_LIMIT", "AIRLOCK_BRIDGE_DENIALS_SUPPRESSED"].includes(r.error ?? ""),
      ),
    ).toBe(true);
    await expectHealthy();
  });

  it("audits an undeclared secret and forged handles as denials while the plugin sees undefined and null", async () => {
    const out = await t.host.callTool("ada", "refuser:probe", {});
    expect(out.errorCode).toBeUndefined();
    expect(out.result.structuredContent).toEqual({
      secret: "undefined",
      forged: null,
      malformed: null,
      own: true,
    });
    const denials = (await rowsOf("probe"))
      .filter((r) => r.allowed === false)
      .map((r) => [r.action, r.error, (r.details as { reason?: string } | null)?.reason]);
    expect(denials).toEqual([
      ["secrets.get", "AIRLOCK_SECRETS_UNDECLARED", "key_not_declared"],
      ["artifacts.take", "AIRLOCK_ARTIFACT_UNAVAILABLE", "unavailable"],
      ["artifacts.take", "AIRLOCK_ARTIFACT_UNAVAILABLE", "malformed"],
    ]);
    await expectHealthy();
  });

  it("bounds a denial flood: DENIAL_ROWS_PER_CALL rows, then one row counting the rest", async () => {
    const out = await t.host.callTool("ada", "refuser:denials", {});
    // 120 attempts but only CAP capability calls: the flood is cut by the cap as well
    expect(out.errorCode).toBe("AIRLOCK_BRIDGE_CALL_LIMIT");
    let rows: AuditRecord[] = [];
    for (;;) {
      rows = await rowsOf("denials");
      if (rows.some((r) => r.error === "AIRLOCK_BRIDGE_DENIALS_SUPPRESSED")) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const undeclared = rows.filter((r) => r.error === "AIRLOCK_SECRETS_UNDECLARED");
    expect(undeclared).toHaveLength(DENIAL_ROWS_PER_CALL);
    const summary = rows.filter((r) => r.error === "AIRLOCK_BRIDGE_DENIALS_SUPPRESSED");
    expect(summary).toHaveLength(1);
    expect((summary[0]?.details as { suppressed: number }).suppressed).toBeGreaterThanOrEqual(
      CAP - DENIAL_ROWS_PER_CALL,
    );
    await expectHealthy();
  });
});
