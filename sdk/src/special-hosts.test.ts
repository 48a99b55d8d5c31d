import { describe, expect, it } from "vitest";
import { parseManifest } from "./manifest.ts";
import { namespaceRefusal } from "./names.ts";
import { samplePluginFiles } from "./package/sample-plugin.ts";
import { manifestHostRefusal } from "./special-hosts.ts";

describe("egress hosts a manifest may not declare", () => {
  it.each([
    "169.254.169.254",
    "168.63.129.16",
    "metadata.google.internal",
    "*.metadata.google.internal",
    "metadata",
    "2852039166",
    "0xa9.254.169.254",
    "0251.254.169.254",
    "127.1",
    "0.0.0.0",
    "224.0.0.251",
    "255.255.255.255",
    "*.10.0.0.1",
  ])("refuses %s", (host) => {
    expect(manifestHostRefusal(host)).not.toBeNull();
  });

  it.each(["api.example.com", "*.example.com", "127.0.0.1", "10.1.2.3", "localhost", "v2.api9.test"])(
    "accepts %s (the operator's allowPrivate decides at run time)",
    (host) => {
      expect(manifestHostRefusal(host)).toBeNull();
    },
  );

  it("is applied by parseManifest, naming the rule's path (build, publish and install all call it)", () => {
    const m = samplePluginFiles({ namespace: "weather", version: "1.0.0" }).parsed;
    expect(() => parseManifest({ ...m, egress: [{ host: "169.254.169.254" }] })).toThrow(
      /\$\.egress\[0\]\.host/,
    );
  });
});

describe("namespaces refused everywhere", () => {
  it.each(["builtin", "root", "constructor", "prototype", "tool5", "h0st", "xn--80ak6aa92e", "ab--c"])(
    "refuses %s",
    (ns) => {
      expect(namespaceRefusal(ns)).not.toBeNull();
    },
  );
  it.each(["weather", "acme-notes", "hosting", "x-n"])("accepts %s", (ns) => {
    expect(namespaceRefusal(ns)).toBeNull();
  });
});
