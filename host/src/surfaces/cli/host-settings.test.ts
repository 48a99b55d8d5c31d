// The settings of `airlock start` / `serve` (host-settings.ts): each from a flag, else its
// AIRLOCK_* variable, else the config file (--config, $AIRLOCK_CONFIG, or airlock.config.json
// beside the data dir); each bad value refused with AIRLOCK_CLI_CONFIG_INVALID naming where it
// came from and the field.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HostOptions } from "../../config.ts";
import { parseOptions } from "./args.ts";
import { applySettings, CONFIG_FILE, envName, SETTING_FLAGS, SETTINGS } from "./host-settings.ts";
import { HOST_OPTIONS } from "./open-host.ts";

let dir: string;
let dataDir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-settings-"));
  dataDir = join(dir, ".airlock-data");
  mkdirSync(dataDir);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function settle(args: string[], env: Record<string, string> = {}, file?: unknown) {
  if (file !== undefined) writeFileSync(join(dir, CONFIG_FILE), JSON.stringify(file));
  const parsed = parseOptions(args, { ...HOST_OPTIONS, ...SETTING_FLAGS });
  const host: HostOptions = { dataDir };
  const { server, file: used } = applySettings(
    parsed,
    { env, cwd: dir, stdout: () => undefined, stderr: () => undefined },
    host,
  );
  return { host, server, used };
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return `${e.code}: ${e.message}`;
  }
  throw new Error("not refused");
}

describe("host settings", () => {
  it("lets the operator allow a loopback model or API for ctx.fetch, by flag, variable or file", () => {
    expect(settle(["--allow-private", "127.0.0.1", "--allow-private", "10.0.0.0/8"]).host.egress).toEqual({
      allowPrivate: ["127.0.0.1", "10.0.0.0/8"],
    });
    expect(settle([], { AIRLOCK_EGRESS_ALLOW_PRIVATE: "127.0.0.1, ::1" }).host.egress).toEqual({
      allowPrivate: ["127.0.0.1", "::1"],
    });
    const fromFile = settle(
      [],
      {},
      { egress: { allowPrivate: ["127.0.0.1"], hosts: { llm: ["127.0.0.1"] } } },
    );
    expect(fromFile.host.egress).toEqual({ allowPrivate: ["127.0.0.1"], hosts: { llm: ["127.0.0.1"] } });
    expect(fromFile.used).toBe(join(dir, CONFIG_FILE));
  });

  it("takes a flag over a variable over the file", () => {
    const file = { limits: { cpuMs: 300 }, port: 1111 };
    expect(settle([], {}, file).host.limits).toEqual({ cpuMs: 300 });
    expect(settle([], { AIRLOCK_LIMITS_CPU_MS: "200" }, file).host.limits).toEqual({ cpuMs: 200 });
    const flagged = settle(["--limit-cpu-ms", "100", "--port", "0"], { AIRLOCK_LIMITS_CPU_MS: "200" }, file);
    expect(flagged.host.limits).toEqual({ cpuMs: 100 });
    expect(flagged.server.port).toBe(0);
  });

  it("sets limits, tasks, the code cache, the public URL, replicas and the server's own settings", () => {
    const { host, server } = settle(
      ["--code-cache", "off", "--public-url", "https://airlock.example.com/", "--log-format", "json"],
      { AIRLOCK_TASKS_CONCURRENCY: "0", AIRLOCK_VERBOSE: "1" },
      {
        limits: { memoryMb: 64, wallMs: 5000 },
        tasks: { toolWallMs: { "llm:complete": 60000 } },
        replica: { id: "r1", staleMs: 9000 },
        remote: { sessionIdleMs: 0 },
        allowedHosts: ["airlock.example.com:443"],
        workers: 3,
        trust: { allowUnsigned: ["file"] },
      },
    );
    expect(host).toMatchObject({
      codeCache: false,
      publicUrl: "https://airlock.example.com",
      limits: { memoryMb: 64, wallMs: 5000 },
      tasks: { concurrency: 0, toolWallMs: { "llm:complete": 60000 } },
      replica: { id: "r1", staleMs: 9000 },
      remote: { sessionIdleMs: 0 },
      sandbox: { workers: 3 },
      trust: { allowUnsigned: ["file"] },
    });
    expect(server).toEqual({ logFormat: "json", verbose: true, allowedHosts: ["airlock.example.com:443"] });
  });

  it("names the bad field and where it came from", () => {
    expect(refusal(() => settle(["--limit-cpu-ms", "fast"]))).toBe(
      'AIRLOCK_CLI_CONFIG_INVALID: --limit-cpu-ms: must be an integer from 1 up (got "fast")',
    );
    expect(refusal(() => settle([], { AIRLOCK_CODE_CACHE: "maybe" }))).toBe(
      'AIRLOCK_CLI_CONFIG_INVALID: AIRLOCK_CODE_CACHE: must be on or off (got "maybe")',
    );
    expect(refusal(() => settle([], {}, { limits: { memoryMb: -1 } }))).toBe(
      `AIRLOCK_CLI_CONFIG_INVALID: ${join(dir, CONFIG_FILE)}: limits.memoryMb: must be an integer from 1 up (got -1)`,
    );
    expect(refusal(() => settle([], {}, { egress: { allowPrivat: ["127.0.0.1"] } }))).toMatch(
      /^AIRLOCK_CLI_CONFIG_INVALID: .*airlock\.config\.json: egress\.allowPrivat: no such setting \(settings: port, /,
    );
    expect(refusal(() => settle([], {}, { publicUrl: "ftp://x" }))).toMatch(
      /publicUrl: must be an http\(s\) URL/,
    );
    expect(refusal(() => settle([], {}, [1]))).toMatch(/must hold one JSON object of settings/);
  });

  it("reads --config or $AIRLOCK_CONFIG, and refuses one that is missing or not JSON", () => {
    writeFileSync(join(dir, "other.json"), JSON.stringify({ sandbox: "in-process" }));
    expect(settle(["--config", "other.json"]).host.sandbox).toEqual({ mode: "in-process" });
    expect(settle([], { AIRLOCK_CONFIG: join(dir, "other.json") }).host.sandbox).toEqual({
      mode: "in-process",
    });
    expect(refusal(() => settle(["--config", "nope.json"]))).toMatch(/nope\.json: cannot be read/);
    writeFileSync(join(dir, "broken.json"), "{");
    expect(refusal(() => settle(["--config", "broken.json"]))).toMatch(/broken\.json: not JSON/);
  });

  it("names every variable AIRLOCK_ + the key in upper snake case", () => {
    expect(envName("limits.maxInputBytes")).toBe("AIRLOCK_LIMITS_MAX_INPUT_BYTES");
    expect(envName("publicUrl")).toBe("AIRLOCK_PUBLIC_URL");
    expect(envName("registryUrl")).toBe("AIRLOCK_REGISTRY_URL");
    expect(new Set(SETTINGS.map((s) => envName(s.key))).size).toBe(SETTINGS.length);
  });
});

it("is documented in docs/api.md, one row per setting", () => {
  const doc = readFileSync(new URL("../../../../docs/api.md", import.meta.url), "utf8");
  for (const s of SETTINGS)
    expect(doc, s.key).toContain(
      `| \`${s.key}\` | ${s.flag === undefined ? "—" : `\`--${s.flag}\``} | \`${envName(s.key)}\` |`,
    );
});
