import type { EgressRule } from "@airlock/sdk/manifest";
import { describe, expect, it } from "vitest";
import { compileAllowance } from "./address.ts";
import { checkDestination, type DestinationContext, hostMatches, parseUrl } from "./destination.ts";
import type { HostPolicy } from "./types.ts";

function ctx(rules: EgressRule[], hosts?: HostPolicy): DestinationContext {
  return { namespace: "weather", rules, hosts, allowance: compileAllowance([]) };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
}

describe("hostMatches", () => {
  it("matches a wildcard's subdomains at any depth but never its apex or a look-alike", () => {
    expect(hostMatches("*.example.com", "api.example.com")).toBe(true);
    expect(hostMatches("*.example.com", "a.b.example.com")).toBe(true);
    expect(hostMatches("*.example.com", "example.com")).toBe(false);
    expect(hostMatches("*.example.com", "badexample.com")).toBe(false);
    expect(hostMatches("api.example.com", "api.example.com.evil.test")).toBe(false);
  });
});

describe("checkDestination", () => {
  it("defaults a rule to https on 443 and binds the rule's secrets", () => {
    const dest = checkDestination(
      parseUrl("https://API.Example.com./v1?q=1#x"),
      ctx([{ host: "api.example.com", secrets: ["api_key"] }]),
    );
    expect(dest).toMatchObject({ scheme: "https", hostname: "api.example.com", port: 443, literal: false });
    expect(dest.url.href).toBe("https://api.example.com/v1?q=1");
    expect([...dest.boundSecrets]).toEqual(["api_key"]);
    expect(
      codeOf(() => checkDestination(parseUrl("http://api.example.com/"), ctx([{ host: "api.example.com" }]))),
    ).toBe("AIRLOCK_FETCH_SCHEME_NOT_ALLOWED");
    expect(
      codeOf(() =>
        checkDestination(parseUrl("https://api.example.com:8443/"), ctx([{ host: "api.example.com" }])),
      ),
    ).toBe("AIRLOCK_FETCH_PORT_NOT_ALLOWED");
  });

  it("binds a secret only through the rules that admit this scheme and port", () => {
    const rules: EgressRule[] = [
      { host: "*.example.com", secrets: ["wide"] },
      { host: "api.example.com", ports: [8443], secrets: ["narrow"] },
    ];
    expect([...checkDestination(parseUrl("https://api.example.com/"), ctx(rules)).boundSecrets]).toEqual([
      "wide",
    ]);
    expect([...checkDestination(parseUrl("https://api.example.com:8443/"), ctx(rules)).boundSecrets]).toEqual(
      ["narrow"],
    );
  });

  it("applies the operator's host record per namespace, and a missing namespace reaches nothing", () => {
    const rules: EgressRule[] = [{ host: "api.example.com" }];
    const url = parseUrl("https://api.example.com/");
    expect(checkDestination(url, ctx(rules, { weather: ["*.example.com"] })).hostname).toBe(
      "api.example.com",
    );
    expect(checkDestination(url, ctx(rules, { weather: ["*"] })).hostname).toBe("api.example.com");
    expect(codeOf(() => checkDestination(url, ctx(rules, { other: ["*"] })))).toBe(
      "AIRLOCK_FETCH_HOST_NOT_ALLOWED",
    );
    expect(
      codeOf(() =>
        checkDestination(
          url,
          ctx(rules, () => false),
        ),
      ),
    ).toBe("AIRLOCK_FETCH_HOST_NOT_ALLOWED");
    expect(codeOf(() => checkDestination(url, ctx([], { weather: ["*"] })))).toBe(
      "AIRLOCK_FETCH_HOST_NOT_ALLOWED",
    );
  });

  it("judges an IP-literal host as an address before looking at the rules", () => {
    const rules: EgressRule[] = [{ host: "127.0.0.1", schemes: ["http"] }];
    expect(codeOf(() => checkDestination(parseUrl("http://0x7f.1/"), ctx(rules)))).toBe(
      "AIRLOCK_FETCH_ADDRESS_REFUSED",
    );
    const allowed = { ...ctx(rules), allowance: compileAllowance(["127.0.0.1"]) };
    expect(checkDestination(parseUrl("http://2130706433/"), allowed)).toMatchObject({
      hostname: "127.0.0.1",
      literal: true,
      port: 80,
    });
  });

  it("resolves a relative Location against the current URL and drops the fragment", () => {
    expect(parseUrl("../b?x=1#frag", new URL("https://h.example/a/c")).href).toBe("https://h.example/b?x=1");
  });
});
