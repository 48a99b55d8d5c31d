// Test helper: copies a fixture plugin (sdk/test/fixtures/<name>) into a fresh temp folder, so
// builds never write into the repository and every test starts from clean sources. The copy
// lives outside any project, so it also exercises the build's fallback to the SDK's own
// node_modules for `@airlock/sdk` and `zod`.
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));

export interface FixtureCopy {
  dir: string;
  remove(): Promise<void>;
}

export async function copyFixture(name: string): Promise<FixtureCopy> {
  const root = await mkdtemp(join(tmpdir(), `airlock-fixture-${name}-`));
  const dir = join(root, name);
  await cp(join(FIXTURES, name), dir, { recursive: true, filter: (src) => !src.includes("/dist") });
  return { dir, remove: () => rm(root, { recursive: true, force: true }) };
}

/** Runs `fn` and returns what it threw (fails the test when it does not throw). */
export async function rejection(
  fn: () => Promise<unknown>,
): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  try {
    await fn();
  } catch (err) {
    return err as { code: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error("expected a rejection, got none");
}
