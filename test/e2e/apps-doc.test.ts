// docs/apps.md, run as printed: its plugin (the `ts` block) is written into a copy of the apps
// fixture and its `sh` commands run there through the `airlock-plugin` CLI, each exiting 0; the
// built UI is listed with its sha512 and packed into the tarball. Its tables name every
// build and install code of plugin UIs, and the host's codes.
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { readPluginTarball } from "@airlock/sdk/package";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UI_ERRORS } from "../../host/src/engine/apps/errors.ts";
import { SDK_ERROR_CODES } from "../../sdk/src/error-codes.ts";
import { PACKAGE_ERRORS } from "../../sdk/src/package/errors.ts";
import { integrityOf } from "../../sdk/src/signing.ts";
import { runCli } from "../../sdk/test/support/cli.ts";
import { copyFixture, type FixtureCopy } from "../../sdk/test/support/fixtures.ts";

const doc = readFileSync(resolve(import.meta.dirname, "../../docs/apps.md"), "utf8");
const source = /```ts\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
const commands = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => (m[1] as string).split("\n"))
  .map((l) => l.trim())
  .filter((l) => l !== "");

let copy: FixtureCopy;
beforeAll(async () => {
  copy = await copyFixture("apps");
});
afterAll(async () => {
  await copy?.remove();
});

describe("docs/apps.md", () => {
  it("builds and packs its plugin with the commands it shows, the UI listed with its sha512", async () => {
    expect(source).toContain('ui: "bars"');
    await writeFile(join(copy.dir, "src/index.ts"), source);
    expect(commands).toEqual(["airlock-plugin build", "airlock-plugin pack"]);
    for (const line of commands) {
      const run = await runCli(line.split(/\s+/).slice(1), copy.dir);
      expect(run.code, `${line}: ${run.stderr}`).toBe(0);
    }
    const manifest = JSON.parse(await readFile(join(copy.dir, "dist/airlock.json"), "utf8"));
    const html = await readFile(join(copy.dir, "dist/ui/bars.html"));
    expect(manifest.ui).toEqual([
      expect.objectContaining({ name: "bars", file: "ui/bars.html", integrity: integrityOf(html) }),
    ]);
    const tarball = await readPluginTarball(await readFile(join(copy.dir, "fixture-apps-0.1.0.tgz")));
    expect(Buffer.from(tarball.files.ui.get("bars") ?? [])).toEqual(html);
  });

  it("names every build, install and serving code of plugin UIs", () => {
    const codes = [
      ...Object.keys(SDK_ERROR_CODES).filter((c) => c.startsWith("AIRLOCK_SDK_BUILD_UI_")),
      ...Object.keys(PACKAGE_ERRORS).filter((c) => c.startsWith("AIRLOCK_PACKAGE_UI_")),
      ...Object.keys(UI_ERRORS),
    ];
    expect(codes.length).toBe(11);
    for (const code of codes) expect(doc, code).toContain(`\`${code}\``);
  });
});
