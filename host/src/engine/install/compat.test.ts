import { samplePluginFiles } from "@airlock/sdk/package";
import { describe, expect, it } from "vitest";
import { checkCompatibility, pickVersion } from "./compat.ts";

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
};
const published = ["0.9.0", "1.0.0", "1.1.0", "1.2.0-beta.1", "2.0.0-rc.1"];

describe("pickVersion", () => {
  it("picks the highest stable version a range admits, ignoring prereleases", () => {
    expect(pickVersion("w", published, "^1.0.0", "1.1.0")).toBe("1.1.0");
    expect(pickVersion("w", published, "*", "1.1.0")).toBe("1.1.0");
    expect(pickVersion("w", published, ">=1.1.0", "1.1.0")).toBe("1.1.0");
    expect(pickVersion("w", published, "~1.0.0", "1.1.0")).toBe("1.0.0");
  });

  it("picks a prerelease only when the range names one of the same major.minor.patch", () => {
    expect(pickVersion("w", published, "^1.2.0-beta.0", "1.1.0")).toBe("1.2.0-beta.1");
    expect(pickVersion("w", published, "2.0.0-rc.1", "1.1.0")).toBe("2.0.0-rc.1");
    expect(codeOf(() => pickVersion("w", published, "^2.0.0", "1.1.0"))).toBe(
      "AIRLOCK_INSTALL_NO_MATCHING_VERSION",
    );
  });

  it("follows dist-tags.latest for `latest` and an empty range", () => {
    expect(pickVersion("w", published, "latest", "1.0.0")).toBe("1.0.0");
    expect(pickVersion("w", published, "", "1.0.0")).toBe("1.0.0");
    expect(pickVersion("w", published, "", undefined)).toBe("1.1.0");
  });

  it("refuses a range that is not semver", () => {
    expect(codeOf(() => pickVersion("w", published, "one-point-oh", "1.1.0"))).toBe(
      "AIRLOCK_INSTALL_RANGE_INVALID",
    );
  });
});

describe("checkCompatibility", () => {
  const manifest = (engine: string, sdk = "1.0.0") =>
    samplePluginFiles({ namespace: "w", version: "1.0.0", engine, sdk }).parsed;

  it("admits a host inside the engine range and an SDK inside the supported range", () => {
    expect(codeOf(() => checkCompatibility(manifest(">=1.0.0 <2.0.0"), "1.4.2", "^1.0.0"))).toBeUndefined();
  });

  it("refuses a prerelease host unless the engine range names that prerelease", () => {
    expect(codeOf(() => checkCompatibility(manifest("<2.0.0"), "2.0.0-alpha.1", "^1.0.0"))).toBe(
      "AIRLOCK_INSTALL_ENGINE_UNSUPPORTED",
    );
    expect(codeOf(() => checkCompatibility(manifest(">=1.0.0"), "1.5.0-rc.1", "^1.0.0"))).toBe(
      "AIRLOCK_INSTALL_ENGINE_UNSUPPORTED",
    );
    expect(
      codeOf(() => checkCompatibility(manifest(">=1.5.0-rc.0"), "1.5.0-rc.1", "^1.0.0")),
    ).toBeUndefined();
  });

  it("refuses an engine that is not a semver range", () => {
    expect(codeOf(() => checkCompatibility(manifest("whenever"), "1.0.0", "^1.0.0"))).toBe(
      "AIRLOCK_INSTALL_ENGINE_UNSUPPORTED",
    );
  });

  it("refuses an SDK outside the supported range, prereleases included", () => {
    expect(codeOf(() => checkCompatibility(manifest("*", "2.0.0"), "1.0.0", "^1.0.0"))).toBe(
      "AIRLOCK_INSTALL_SDK_UNSUPPORTED",
    );
    expect(codeOf(() => checkCompatibility(manifest("*", "1.3.0-beta.2"), "1.0.0", "^1.0.0"))).toBe(
      "AIRLOCK_INSTALL_SDK_UNSUPPORTED",
    );
  });
});
