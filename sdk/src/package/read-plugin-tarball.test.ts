import { describe, expect, it } from "vitest";
import { gzip, readPluginTarball, samplePluginFiles, samplePluginTarball, tarArchive } from "./index.ts";

describe("readPluginTarball", () => {
  it("returns the manifest, package.json and bundle of a well-formed tarball", async () => {
    const files = samplePluginFiles({ namespace: "weather", version: "1.2.3" });
    const read = await readPluginTarball(samplePluginTarball({ namespace: "weather", version: "1.2.3" }));
    expect(read.manifest.namespace).toBe("weather");
    expect(read.manifest.version).toBe("1.2.3");
    expect(read.packageJson.version).toBe("1.2.3");
    expect(read.bundle).toBe(files.bundle);
    expect(read.entries.map((e) => e.path)).toEqual([
      "package/package.json",
      "package/airlock.json",
      "package/index.js",
    ]);
  });

  it("accepts the package/ directory entry that tar-based packers write", async () => {
    const f = samplePluginFiles({ namespace: "weather", version: "1.0.0" });
    const bytes = gzip(
      tarArchive([
        { path: "package/", type: "5" },
        { path: "package/package.json", body: f.packageJson },
        { path: "package/airlock.json", body: f.manifest },
        { path: "package/index.js", body: f.bundle },
      ]),
    );
    const read = await readPluginTarball(bytes);
    expect(read.entries[0]).toEqual({ path: "package/", type: "directory", size: 0 });
  });

  it("refuses a manifest that does not validate, with the manifest's own code", async () => {
    const bytes = samplePluginTarball({
      namespace: "weather",
      version: "1.0.0",
      patch: (m) => {
        m.namespace = "Weather";
      },
    });
    await expect(readPluginTarball(bytes)).rejects.toMatchObject({ code: "AIRLOCK_MANIFEST_INVALID" });
  });

  it("refuses a package.json whose version differs from the manifest", async () => {
    const f = samplePluginFiles({ namespace: "weather", version: "1.0.0" });
    const bytes = gzip(
      tarArchive([
        { path: "package/package.json", body: JSON.stringify({ name: "weather", version: "9.9.9" }) },
        { path: "package/airlock.json", body: f.manifest },
        { path: "package/index.js", body: f.bundle },
      ]),
    );
    await expect(readPluginTarball(bytes)).rejects.toMatchObject({
      code: "AIRLOCK_PACKAGE_METADATA_MISMATCH",
    });
  });
});
