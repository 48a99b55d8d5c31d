// `airlock agents code-mode` on a data directory, run in-process through runCli: shows the
// defaults, turns code mode on with limits, refuses a bad state or limit with its code, off again.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runCli } from "../../surfaces/cli/main.ts";
import type { CliIO } from "../../surfaces/cli/types.ts";

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "airlock-cli-code-mode-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIO = {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    env: { AIRLOCK_DATA_DIR: dataDir, AIRLOCK_SANDBOX: "in-process" },
    cwd: dataDir,
  };
  return { code: await runCli(argv, io), out, err };
}

test("airlock agents code-mode shows, turns on with limits, refuses bad input, turns off", async () => {
  expect((await cli("agents", "create", "helper")).code).toBe(0);
  const shown = await cli("agents", "code-mode", "helper");
  expect(shown.code).toBe(0);
  expect(shown.out).toContain("Code mode of helper: off");
  const on = await cli(
    "agents",
    "code-mode",
    "helper",
    "on",
    "--max-inner-calls",
    "7",
    "--exclusive",
    "--json",
  );
  expect(on.code, on.err).toBe(0);
  expect(JSON.parse(on.out)).toMatchObject({ enabled: true, exclusive: true, limits: { maxInnerCalls: 7 } });
  const badState = await cli("agents", "code-mode", "helper", "maybe");
  expect(badState.code).not.toBe(0);
  expect(badState.err).toContain("AIRLOCK_CLI_USAGE");
  const badLimit = await cli("agents", "code-mode", "helper", "--cpu-ms", "1");
  expect(badLimit.code).not.toBe(0);
  expect(badLimit.err).toContain("AIRLOCK_CODE_SETTINGS_INVALID");
  const off = await cli("agents", "code-mode", "helper", "off");
  expect(off.out).toContain("Code mode of helper: off (exclusive)");
  expect(off.out).toContain("maxInnerCalls=7");
  const unknown = await cli("agents", "code-mode", "nobody", "on");
  expect(unknown.code).not.toBe(0);
});

test("runs the commands docs/code-mode.md prints, exactly as printed", async () => {
  const doc = await readFile(new URL("../../../../docs/code-mode.md", import.meta.url), "utf8");
  const block = /```sh\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
  const lines = block.split("\n").filter((l) => l.startsWith("airlock "));
  expect(lines.length).toBeGreaterThan(0);
  expect((await cli("agents", "create", "support-bot")).code).toBe(0);
  for (const line of lines) {
    const res = await cli(...line.split(/\s+/).slice(1));
    expect(res.code, `${line}: ${res.err}`).toBe(0);
  }
  const last = JSON.parse((await cli("agents", "code-mode", "support-bot", "--json")).out);
  expect(last).toMatchObject({
    enabled: false,
    exclusive: true,
    scratch: true,
    limits: { maxInnerCalls: 20, scratchMaxKeys: 50 },
  });
  const shown = await cli("agents", "code-mode", "support-bot");
  expect(shown.out).toContain("Scratch store: on");
  const off = await cli("agents", "code-mode", "support-bot", "--no-scratch", "--json");
  expect(JSON.parse(off.out)).toMatchObject({ scratch: false, limits: { scratchMaxKeys: 50 } });
  const bad = await cli("agents", "code-mode", "support-bot", "--scratch-max-keys", "0");
  expect(bad.err).toContain("AIRLOCK_CODE_SETTINGS_INVALID");
});

test("runs the snippet commands docs/code-mode.md prints, exactly as printed", async () => {
  const doc = await readFile(new URL("../../../../docs/code-mode.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Saved snippets"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const lines = block.split("\n").filter((l) => l.startsWith("airlock "));
  expect(lines.length).toBeGreaterThan(5);
  await writeFile(
    join(dataDir, "weekly-chart.ts"),
    "return await tools.render.renderChart({ values: [1, 2] });\n",
  );
  const outs: string[] = [];
  for (const line of lines) {
    // words, or "quoted words", as a shell splits them
    const argv = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? "");
    const res = await cli(...argv.slice(1));
    expect(res.code, `${line}: ${res.err}`).toBe(0);
    outs.push(res.out);
  }
  expect(outs[2]).toContain("weekly-chart\tSales chart of the week\tsaved");
  expect(outs[3]).toContain("renderChart({ values: [1, 2] })");
  expect(outs[4]).toContain("[skill airlock:skill:snippet-weekly-chart]");
  expect(outs[6]).toContain("Deleted weekly-chart.");
  const list = await cli("agents", "snippets", "support-bot", "--json");
  expect(JSON.parse(list.out)).toEqual([]);
  const bad = await cli("agents", "snippets", "support-bot", "show", "Bad Name");
  expect(bad.err).toContain("AIRLOCK_CODE_SNIPPET_INVALID");
});
