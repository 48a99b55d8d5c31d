// One version for the product: every workspace package.json, the SDK's SDK_VERSION (written
// into manifests), the host's version (engine ranges are checked against it) and the three
// CLIs' `--version` all say the same thing.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_HOST_VERSION } from "@airlock/host/config.ts";
import { runCli } from "@airlock/host/surfaces/cli/main.ts";
import { runRegistryCli } from "@airlock/registry";
import { SDK_VERSION } from "@airlock/sdk/manifest";
import { describe, expect, it } from "vitest";
import { main as pluginCli } from "../../sdk/src/cli/main.ts";
import { ROOT } from "./cli-support.ts";

function capture() {
  const out: string[] = [];
  const write = (t: string) => {
    out.push(t);
  };
  return { io: { stdout: write, stderr: write, env: {}, cwd: ROOT }, out: () => out.join("") };
}

describe("the product version", () => {
  it("is the same in every package.json, the SDK and the host", () => {
    for (const dir of [".", "sdk", "host", "registry"]) {
      const pkg = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as { version: string };
      expect({ dir, version: pkg.version }).toEqual({ dir, version: SDK_VERSION });
    }
    expect(DEFAULT_HOST_VERSION).toBe(SDK_VERSION);
  });

  it("is what `--version` prints on airlock, airlock-plugin and airlock-registry", async () => {
    for (const run of [
      (io: ReturnType<typeof capture>["io"]) => runCli(["--version"], io),
      (io: ReturnType<typeof capture>["io"]) => pluginCli(["--version"], io),
      (io: ReturnType<typeof capture>["io"]) => runRegistryCli(["--version"], io),
    ]) {
      const c = capture();
      expect(await run(c.io)).toBe(0);
      expect(c.out()).toBe(`${SDK_VERSION}\n`);
    }
  });
});
