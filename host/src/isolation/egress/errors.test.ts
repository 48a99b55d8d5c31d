import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FETCH_ERRORS, REFUSAL_CODES } from "./errors.ts";

const doc = readFileSync(join(import.meta.dirname, "../../../../docs/egress.md"), "utf8");

describe("the AIRLOCK_FETCH_* catalogue", () => {
  it.each(Object.entries(FETCH_ERRORS))("documents %s with its status in docs/egress.md", (code, spec) => {
    expect(doc).toContain(`| \`${code}\` | ${spec.status} |`);
  });

  it("documents no code the catalogue lacks", () => {
    const documented = [...doc.matchAll(/\| `(AIRLOCK_FETCH_[A-Z_]+)` \|/g)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(FETCH_ERRORS).sort());
  });

  it("counts only policy refusals as refusals", () => {
    for (const code of REFUSAL_CODES) expect(Object.hasOwn(FETCH_ERRORS, code)).toBe(true);
    expect(REFUSAL_CODES.has("AIRLOCK_FETCH_TIMEOUT")).toBe(false);
  });
});
