// Test helpers for the sandbox suites: hand-written fixture bundles (test/fixtures/bundles/) and
// the SandboxPlugin builder (host/src/isolation/sandbox/plugin-fixture.ts).
import { readFileSync } from "node:fs";

export {
  type FixtureTool,
  fixtureManifest,
  integrityOf,
  makePlugin,
} from "../../host/src/isolation/sandbox/plugin-fixture.ts";

export function fixtureBundle(name: string): string {
  return readFileSync(new URL(`../fixtures/bundles/${name}.js`, import.meta.url), "utf8");
}
