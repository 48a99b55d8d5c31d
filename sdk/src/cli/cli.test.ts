import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { list } from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, spawnCli } from "../../test/support/cli.ts";
import { FIXTURES } from "../../test/support/fixtures.ts";
import { parseManifest } from "../manifest.ts";
import { integrityOf, keyIdOf } from "../signing.ts";
import { COMMANDS } from "./main.ts";

const ROOT = join(import.meta.dirname, "../../..");
const SDK_DIR = join(ROOT, "sdk");

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "airlock-cli-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("airlock-plugin as a new user runs it", () => {
  it("init, then build, check and pack the scaffold through the CLI entry on Node 24", async () => {
    const init = spawnCli(["init", "my-plugin"], work);
    expect(init.code, init.stderr).toBe(0);
    const dir = join(work, "my-plugin");
    for (const file of ["package.json", "src/index.ts", "test/greet.test.ts", "README.md"]) {
      await expect(stat(join(dir, file))).resolves.toBeTruthy();
    }
    expect(await readFile(join(dir, "test/greet.test.ts"), "utf8")).toContain(
      'import { testTool } from "@airlock/sdk/testing"',
    );

    const build = spawnCli(["build"], dir);
    expect(build.code, build.stderr).toBe(0);
    expect(build.stdout).toContain("built my-plugin@0.1.0: 1 tool (greet)");
    const check = spawnCli(["check"], dir);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const pack = spawnCli(["pack", "my-plugin"], work);
    expect(pack.code, pack.stderr).toBe(0);

    const tgz = join(dir, "my-plugin-0.1.0.tgz");
    expect(pack.stdout).toContain(`integrity ${integrityOf(await readFile(tgz))}`);
    const paths: string[] = [];
    let manifestText = "";
    await list({
      file: tgz,
      onReadEntry: (entry) => {
        paths.push(entry.path);
        entry.on("data", (c: Buffer) => {
          if (entry.path === "package/airlock.json") manifestText += c.toString("utf8");
        });
      },
    });
    expect(paths).toEqual(["package/package.json", "package/airlock.json", "package/index.js"]);
    const manifest = parseManifest(JSON.parse(manifestText));
    expect(manifest.tools.map((t) => t.name)).toEqual(["greet"]);
    expect(manifest.namespace).toBe("my-plugin");
  });
});

describe("the scaffold, in a folder outside any repository", () => {
  it("links the SDK it came from, ignores keys/, and formats, type-checks and tests as generated", async () => {
    const init = spawnCli(["init", "outside", "--namespace", "outside"], work);
    expect(init.code, init.stderr).toBe(0);
    const dir = join(work, "outside");
    const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.dependencies["@airlock/sdk"]).toBe(`file:${SDK_DIR}`);
    expect(pkg.devDependencies["@airlock/host"]).toBe(`file:${join(ROOT, "host")}`);
    expect((await readFile(join(dir, ".gitignore"), "utf8")).split("\n")).toContain("keys/");
    // What `npm install` would link: this workspace's modules.
    await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const format = spawnSync(join(ROOT, "node_modules/.bin/biome"), ["format", "--config-path", ROOT, dir], {
      encoding: "utf8",
    });
    expect(format.status, format.stdout + format.stderr).toBe(0);
    const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", dir], {
      encoding: "utf8",
    });
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
    const test = spawnCli(["test"], dir);
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toContain("2 passed");
    // Four child processes (init, format, tsc, a vitest run) in a row: 33 s was seen on a loaded
    // machine against the suite's 30 s default.
  }, 120_000);
});

describe("airlock-plugin commands", () => {
  it("answers --help on every command with its own usage, and exit 0", async () => {
    expect([...COMMANDS.keys()]).toEqual(
      expect.arrayContaining(["init", "build", "check", "pack", "keygen", "publish"]),
    );
    for (const name of COMMANDS.keys()) {
      const run = await runCli([name, "--help"], work);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Usage: airlock-plugin ${name}`);
    }
    const top = await runCli(["--help"], work);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain("Exit status");
  });

  it("accepts every option its --help documents (help stays true to the code)", async () => {
    for (const [name, command] of COMMANDS) {
      // Documented flags: those on option lines and on the command's own usage lines.
      const lines = command.help.split("\n").filter(
        (l) =>
          /^\s+(-\w, )?--[a-z]/.test(l) ||
          l
            .replace(/^Usage:/, "")
            .trim()
            .startsWith(`airlock-plugin ${name}`),
      );
      const flags = [...new Set(lines.flatMap((l) => l.match(/--[a-z][a-z-]*/g) ?? []))].filter(
        (f) => f !== "--help",
      );
      expect(flags.length, name).toBeGreaterThan(0);
      for (const flag of flags) {
        const asBoolean = await runCli([name, flag, "--help"], work);
        const asString = await runCli([name, `${flag}=x`, "--help"], work);
        expect([asBoolean.code, asString.code], `${name} ${flag}`).toContain(0);
      }
      const undocumented = await runCli([name, "--undocumented-flag", "--help"], work);
      expect(undocumented.code).toBe(2);
    }
  });

  it("exits 2 on an unknown command, an unknown option and a missing argument", async () => {
    expect((await runCli(["bogus"], work)).code).toBe(2);
    const option = await runCli(["build", "--fast"], work);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("AIRLOCK_SDK_USAGE");
    expect((await runCli(["init"], work)).code).toBe(2);
    expect((await runCli([], work)).code).toBe(2);
  });

  it("refuses to init into a non-empty directory, and a reserved namespace", async () => {
    await writeFile(join(work, "occupied.txt"), "x");
    const occupied = await runCli(["init", "."], work);
    expect(occupied.code).toBe(1);
    expect(occupied.stderr).toContain("AIRLOCK_SDK_INIT_EXISTS");
    expect((await runCli(["init", "plugins-x", "--namespace", "system"], work)).stderr).toContain(
      "not a usable namespace",
    );
  });

  it("check prints every violation with its path and fix, and exits 1", async () => {
    const run = await runCli(["check", join(FIXTURES, "lint-violation")], work);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("fetchPage $.properties.url [format]");
    expect(run.stdout).toContain("fetchPage $.properties.limit [optional]");
    expect(run.stdout).toContain("fetchPage $.properties.raw [description]");
    expect(run.stdout.match(/fix: /g)).toHaveLength(3);
  });

  it("check --manifest reports manifest problems and lint violations of a file", async () => {
    const file = join(work, "broken.json");
    await writeFile(
      file,
      JSON.stringify({
        namespace: "Bad_Name",
        tools: [{ name: "x", inputSchema: { type: "object", properties: { a: { type: "string" } } } }],
      }),
    );
    const run = await runCli(["check", "--manifest", file], work);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("manifest $.namespace");
    expect(run.stdout).toContain("x $.properties.a [optional]");
  });

  it("keygen writes a 0600 private key and prints the public key's id; never overwrites without --force", async () => {
    const run = await runCli(["keygen", "--out", "keys", "--name", "acme"], work);
    expect(run.code, run.stderr).toBe(0);
    const pub = await readFile(join(work, "keys/acme.pub"), "utf8");
    expect(run.stdout).toContain(`key id      ${keyIdOf(pub)}`);
    expect((await stat(join(work, "keys/acme.key"))).mode & 0o777).toBe(0o600);
    const again = await runCli(["keygen", "--out", "keys", "--name", "acme"], work);
    expect(again.code).toBe(2);
    expect(await readFile(join(work, "keys/acme.pub"), "utf8")).toBe(pub);
    expect((await runCli(["keygen", "--out", "keys", "--name", "acme", "--force"], work)).code).toBe(0);
  });
});
