// Every registry error code has its line in docs/registry.md.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REGISTRY_ERRORS } from "./errors.ts";

const doc = readFileSync(join(import.meta.dirname, "../../docs/registry.md"), "utf8");

describe("docs/registry.md", () => {
  it("documents every AIRLOCK_REGISTRY_* code with its status", () => {
    const missing = Object.entries(REGISTRY_ERRORS)
      .filter(([code, spec]) => !doc.includes(`| \`${code}\` | ${spec.status} |`))
      .map(([code]) => code);
    expect(missing).toEqual([]);
  });
});
