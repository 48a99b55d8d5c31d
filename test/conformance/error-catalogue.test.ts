// One catalogue of error codes (STYLE.md): each code defined once, every AIRLOCK_* code the
// source throws is catalogued with a status and a description, and docs/errors.md is current.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { envName, SETTINGS } from "../../host/src/surfaces/cli/host-settings.ts";
import { AREAS, allCodes, duplicateCodes, errorsDoc } from "../../scripts/error-catalogue.ts";

const root = resolve(import.meta.dirname, "../..");

/** AIRLOCK_* names that are environment variables, not error codes. */
const ENV_VARS = new Set([
  "AIRLOCK_AUTHZ_ACCESS_TOKEN_TTL",
  "AIRLOCK_AUTHZ_MAX_CLIENTS",
  "AIRLOCK_DATA_DIR",
  "AIRLOCK_DEBUG",
  "AIRLOCK_FROM_SOURCE",
  "AIRLOCK_MASTER_KEY",
  "AIRLOCK_MASTER_KEY_FILE",
  "AIRLOCK_OPERATOR_TOKEN",
  "AIRLOCK_REGISTRY_DIR",
  "AIRLOCK_REGISTRY_TOKEN",
  "AIRLOCK_REGISTRY_URL",
  "AIRLOCK_SANDBOX",
  "AIRLOCK_SIGNING_KEY",
  "AIRLOCK_TEST_PG",
  "AIRLOCK_TEST_STORE",
  "AIRLOCK_REQUIRE_PG",
  "AIRLOCK_REQUIRE_NGINX",
  "AIRLOCK_STORE_URL",
  "AIRLOCK_REPLICA_ID",
  "AIRLOCK_SCALE_LOAD_SECONDS",
  "AIRLOCK_PUBLIC_URL",
  "AIRLOCK_CONFIG",
  // The settings of `airlock start` / `serve`, one variable each (host-settings.ts).
  ...SETTINGS.map((s) => envName(s.key)),
]);

function codesInSource(): Set<string> {
  const out = execFileSync(
    "grep",
    [
      "-rhoP",
      "AIRLOCK_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_])",
      "--include=*.ts",
      "--include=*.js",
      "--exclude=*.test.ts",
      "sdk/src",
      "sdk/bin",
      "host/src",
      "host/bin",
      "registry/src",
      "registry/bin",
    ],
    { cwd: root, encoding: "utf8" },
  );
  return new Set(out.split("\n").filter((c) => c !== "" && !ENV_VARS.has(c)));
}

describe("error catalogue", () => {
  it("defines each code once, in one area", () => {
    expect(duplicateCodes()).toEqual([]);
  });

  it("gives every code the AIRLOCK_ form, an HTTP status and a description", () => {
    for (const { codes } of AREAS) {
      for (const [code, spec] of Object.entries(codes)) {
        expect(code).toMatch(/^AIRLOCK_[A-Z0-9]+(_[A-Z0-9]+)*$/);
        expect(spec.status, code).toBeGreaterThanOrEqual(400);
        expect(spec.status, code).toBeLessThan(600);
        expect(spec.description.length, code).toBeGreaterThan(10);
      }
    }
  });

  it("catalogues every code the source names", () => {
    const known = allCodes();
    // Prefixes such as "AIRLOCK_FETCH_" (followed by "_") are not codes and are not matched.
    const missing = [...codesInSource()].filter((c) => !known.has(c));
    expect(missing).toEqual([]);
  });

  it("keeps docs/errors.md equal to what the catalogue generates", () => {
    expect(readFileSync(join(root, "docs", "errors.md"), "utf8")).toBe(errorsDoc());
  });
});
