import { describe, expect, it } from "vitest";
import { parseManifest } from "./manifest.ts";
import { samplePluginFiles } from "./package/sample-plugin.ts";

function issuesFor(field: "version" | "sdk", value: string): string[] {
  try {
    parseManifest({
      ...samplePluginFiles({ namespace: "weather", version: "1.0.0" }).parsed,
      [field]: value,
    });
    return [];
  } catch (error) {
    expect((error as { code?: string }).code).toBe("AIRLOCK_MANIFEST_INVALID");
    return ((error as { details: { issues: Array<{ path: string }> } }).details.issues ?? []).map(
      (i) => i.path,
    );
  }
}

describe("manifest versions are strict semver", () => {
  it.each([
    "01.0.0",
    "1.01.0",
    "1.0.01",
    "1.0.0-01",
    "9007199254740992.0.0",
    "1.0.0-rc.9007199254740993",
    "1.0",
    "v1.0.0",
    `1.0.0-${"a".repeat(260)}`,
  ])("refuses %s as a version with AIRLOCK_MANIFEST_INVALID at $.version", (version) => {
    expect(issuesFor("version", version)).toEqual(["$.version"]);
  });

  it.each([
    "0.0.0",
    "1.2.3",
    "1.2.3-beta.1",
    "1.2.3-0",
    "1.2.3+build.7",
    "9007199254740991.0.0",
    "1.0.0-x-y.0a",
  ])("accepts %s", (version) => {
    expect(issuesFor("version", version)).toEqual([]);
  });

  it("refuses build metadata and leading zeros in the sdk version", () => {
    expect(issuesFor("sdk", "1.0.0+b")).toEqual(["$.sdk"]);
    expect(issuesFor("sdk", "1.00.0")).toEqual(["$.sdk"]);
    expect(issuesFor("sdk", "1.0.0")).toEqual([]);
  });
});
