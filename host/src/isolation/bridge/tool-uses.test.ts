import type { ToolUses } from "@airlock/sdk";
import type { ToolManifest } from "@airlock/sdk/manifest";
import { describe, expect, it } from "vitest";
import { egressForUses, toolGrantsOf, undeclaredUse } from "./tool-uses.ts";

const reasonOf = (uses: ToolUses | null, capability: string, method: string, args: unknown[] = []) =>
  undeclaredUse({ uses }, capability, method, args)?.reason ?? null;

describe("undeclaredUse", () => {
  it("leaves a legacy tool (no uses) to the plugin's grants", () => {
    for (const [cap, method] of [
      ["knowledge", "delete"],
      ["state", "set"],
      ["artifacts", "put"],
      ["fetch", "request"],
      ["models", "complete"],
      ["oauth", "token"],
    ] as const)
      expect(reasonOf(null, cap, method, ["https://x.example/"])).toBeNull();
  });

  it("orders knowledge read < write < manage, and state read < write", () => {
    const read: ToolUses = { knowledge: "read", state: "read" };
    expect(reasonOf(read, "knowledge", "search")).toBeNull();
    expect(reasonOf(read, "knowledge", "append")).toBe("knowledge_write");
    expect(reasonOf({ knowledge: "write" }, "knowledge", "write")).toBeNull();
    expect(reasonOf({ knowledge: "write" }, "knowledge", "reingest")).toBeNull();
    expect(reasonOf({ knowledge: "write" }, "knowledge", "delete")).toBe("knowledge_manage");
    expect(reasonOf({ knowledge: "manage" }, "knowledge", "delete")).toBeNull();
    expect(reasonOf(read, "state", "keys")).toBeNull();
    expect(reasonOf(read, "state", "delete")).toBe("state_write");
    expect(reasonOf({}, "state", "get")).toBe("state_read");
  });

  it("fails closed on a method of a governed capability it does not know", () => {
    expect(reasonOf({ knowledge: "manage" }, "knowledge", "purgeAll")).toBe("knowledge_manage");
    expect(reasonOf({ state: "write" }, "state", "wipe")).toBe("state_write");
    expect(reasonOf({ artifacts: ["put", "take"] }, "artifacts", "list")).toBe("artifacts");
  });

  it("checks a fetch's host (wildcards cover subdomains only), method and OAuth provider", () => {
    const uses: ToolUses = { fetch: [{ host: "*.api.example", methods: ["GET"] }], oauth: ["acme"] };
    expect(reasonOf(uses, "fetch", "request", ["https://v1.api.example/x"])).toBeNull();
    expect(reasonOf(uses, "fetch", "request", ["https://api.example/x"])).toBe("fetch_host");
    expect(reasonOf(uses, "fetch", "request", ["https://v1.api.example/x", { method: "delete" }])).toBe(
      "fetch_method",
    );
    expect(reasonOf(uses, "fetch", "request", ["https://v1.api.example/", { oauth: "acme" }])).toBeNull();
    expect(reasonOf(uses, "fetch", "request", ["https://v1.api.example/", { oauth: "other" }])).toBe(
      "oauth_provider",
    );
    expect(reasonOf(uses, "oauth", "requireToken", ["other"])).toBe("oauth_provider");
    expect(reasonOf(uses, "oauth", "requireToken", ["acme"])).toBeNull();
  });

  it("leaves the ungoverned capabilities alone", () => {
    for (const cap of ["audit", "progress", "log", "elicit", "secrets"])
      expect(reasonOf({}, cap, "anything")).toBeNull();
  });
});

describe("egressForUses", () => {
  const rules = [{ host: "*.api.example", ports: [8443], secrets: ["k"] }, { host: "other.example" }];
  it("narrows the rules in force to the tool's declared hosts, keeping each rule's ports and secrets", () => {
    expect(egressForUses(rules, { fetch: [{ host: "v1.api.example", methods: ["GET"] }] })).toEqual([
      { host: "v1.api.example", ports: [8443], secrets: ["k"] },
    ]);
    expect(egressForUses(rules, {})).toEqual([]);
    expect(egressForUses(rules, null)).toBe(rules);
  });
  it("gives nothing for a declared host the operator's policy already removed", () => {
    expect(egressForUses([rules[1]!], { fetch: [{ host: "v1.api.example", methods: ["GET"] }] })).toEqual([]);
  });
});

describe("toolGrantsOf", () => {
  const tool = (uses?: ToolUses): ToolManifest => ({
    name: "t",
    description: "d",
    category: "c",
    inputSchema: {},
    annotations: {},
    requiredSecrets: [{ key: "own", type: "text", optional: false, sensitive: true }],
    inputExamples: [],
    harness: null,
    ...(uses === undefined ? {} : { uses }),
  });
  it("reads a declared tool's requiredSecrets plus uses.secrets, a legacy tool's requiredSecrets", () => {
    expect([...toolGrantsOf(tool({ secrets: ["shared"] })).declaredSecrets]).toEqual(["own", "shared"]);
    expect(toolGrantsOf(tool()).uses).toBeNull();
    expect([...toolGrantsOf(tool()).declaredSecrets]).toEqual(["own"]);
  });
});
