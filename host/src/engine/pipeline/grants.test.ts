import { describe, expect, it } from "vitest";
import { inboundBudget, narrowEgress } from "./grants.ts";

const rules = [
  { host: "api.example.com" },
  { host: "*.cdn.example.com" },
  { host: "other.org", ports: [8443] },
];

describe("egress narrowing by operator policy", () => {
  it("keeps the manifest's rules when the operator sets no host policy", () => {
    expect(narrowEgress("ns", rules, {})).toEqual(rules);
  });

  it("keeps only rules a namespace's patterns cover; a namespace not named reaches nothing", () => {
    const policy = { hosts: { ns: ["api.example.com", "*.example.com"] } };
    expect(narrowEgress("ns", rules, policy).map((r) => r.host)).toEqual([
      "api.example.com",
      "*.cdn.example.com",
    ]);
    expect(narrowEgress("stranger", rules, policy)).toEqual([]);
    expect(narrowEgress("ns", rules, { hosts: { ns: ["*"] } })).toEqual(rules);
  });

  it("never lets an exact pattern widen into a wildcard rule", () => {
    expect(narrowEgress("ns", rules, { hosts: { ns: ["x.cdn.example.com"] } })).toEqual([]);
  });

  it("asks a policy function per namespace and host", () => {
    const policy = { hosts: (ns: string, host: string) => ns === "ns" && host.endsWith(".org") };
    expect(narrowEgress("ns", rules, policy)).toEqual([{ host: "other.org", ports: [8443] }]);
  });
});

describe("inbound data budget", () => {
  it("lets a capability copy at most a quarter of the plugin's heap into the isolate", () => {
    expect(inboundBudget(128)).toBe(32 * 1024 * 1024);
    expect(inboundBudget(8)).toBe(2 * 1024 * 1024);
  });
});
