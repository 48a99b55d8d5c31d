// The store conformance suite against the embedded SQLite store, one fresh data dir per test.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe } from "vitest";
import { storeConformance } from "../../host/src/state/store/conformance.ts";
import { openStore } from "../../host/src/state/store/index.ts";

const root = mkdtempSync(join(tmpdir(), "airlock-store-sqlite-"));
let n = 0;

describe("SQLite store conformance", () => {
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  storeConformance(() => openStore({ kind: "sqlite", dataDir: join(root, String(n++)) }));
});
