// `airlock serve` (and start) take the host's settings from airlock.config.json beside the data
// dir: here a limit the operator lowered reaches the running host (a call over it is refused
// with its code; the port comes from the file too), and a bad value stops
// startup with one line naming the file and the field, before anything listens.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { samplePluginTarball, sha512Integrity } from "@airlock/sdk/package";
import { generateKeyPair, signIntegrity } from "@airlock/sdk/signing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, type Daemon, daemon, ok } from "./cli-support.ts";

const STEP = 120_000;
let work: string;
let dataDir: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "airlock-settings-e2e-"));
  dataDir = join(work, "data");
  await mkdir(dataDir);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("airlock serve with airlock.config.json", () => {
  it("refuses a bad setting at start, naming the file and the field", async () => {
    const bad = join(work, "bad");
    await mkdir(join(bad, "data"), { recursive: true });
    await writeFile(join(bad, "airlock.config.json"), JSON.stringify({ limits: { cpuMs: "fast" } }));
    const r = await cli("airlock", ["serve", "--data-dir", join(bad, "data"), "--port", "0"], {
      env: { HOME: bad },
    });
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toMatch(/Press Ctrl\+C/);
    expect(r.stderr.trim()).toBe(
      `error: AIRLOCK_CLI_CONFIG_INVALID: ${join(bad, "airlock.config.json")}: limits.cpuMs: must be an integer from 1 up (got "fast")`,
    );
  });

  it("applies the file's limits to the running host", { timeout: STEP }, async () => {
    const key = generateKeyPair();
    const tarball = samplePluginTarball({ namespace: "greeter", version: "1.0.0" });
    await writeFile(join(work, "greeter.tgz"), tarball);
    await writeFile(
      join(work, "greeter.tgz.sig"),
      JSON.stringify(signIntegrity(sha512Integrity(tarball), key.privateKeyPem)),
    );
    await writeFile(join(work, "me.pub"), key.publicKeyPem);
    const env = { HOME: work, AIRLOCK_SANDBOX: "in-process" };
    const on = ["--data-dir", dataDir];
    await ok("airlock", ["install", join(work, "greeter.tgz"), "--trust-key", join(work, "me.pub"), ...on], {
      env,
    });
    await ok("airlock", ["agents", "create", "a", ...on], { env });
    await ok("airlock", ["agents", "enable", "a", "greeter:echo", ...on], { env });
    await writeFile(
      join(work, "airlock.config.json"),
      JSON.stringify({ limits: { maxInputBytes: 64 }, logFormat: "json", port: 0 }),
    );
    let host: Daemon | undefined;
    try {
      host = await daemon("airlock", ["serve", ...on], /Press Ctrl\+C/, { env });
      const api = /Admin API:\s+(\S+)\/api\s/.exec(host.output())?.[1] ?? "";
      const operator = /Operator token:\s+(\S+)/.exec(host.output())?.[1] ?? "";
      const call = (text: string) =>
        fetch(`${api}/api/agents/a/calls`, {
          method: "POST",
          headers: { authorization: `Bearer ${operator}`, "content-type": "application/json" },
          body: JSON.stringify({ tool: "greeter:echo", input: { text } }),
        });
      expect((await call("short")).status).toBe(200);
      const long = await call("x".repeat(200));
      expect(JSON.stringify(await long.json())).toContain("AIRLOCK_TOOL_INPUT_TOO_LARGE");
    } finally {
      await host?.stop();
    }
  });
});
