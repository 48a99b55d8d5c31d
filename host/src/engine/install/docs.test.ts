// Every error code of the installer and the tarball reader has its line in docs/install.md.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ERRORS } from "@airlock/sdk/package";
import { describe, expect, it } from "vitest";
import { INSTALL_ERRORS } from "./errors.ts";

const doc = readFileSync(join(import.meta.dirname, "../../../../docs/install.md"), "utf8");

describe("docs/install.md", () => {
  it("documents every AIRLOCK_INSTALL_* and AIRLOCK_PACKAGE_* code with its status", () => {
    const missing = Object.entries({ ...INSTALL_ERRORS, ...PACKAGE_ERRORS })
      .filter(([code, spec]) => !doc.includes(`| \`${code}\` | ${spec.status} |`))
      .map(([code]) => code);
    expect(missing).toEqual([]);
  });
});
