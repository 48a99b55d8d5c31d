// The test `airlock-plugin init` scaffolds passes as generated: the scaffold is written to a temp
// dir (node_modules linked to this workspace's, as an installed plugin project would have) and
// its test file is imported here, so its own describe/it blocks run in this suite, unchanged.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { scaffoldFiles } from "../cli/scaffold.ts";

const workspaceModules = resolve(import.meta.dirname, "../../../node_modules");
const dir = mkdtempSync(join(tmpdir(), "airlock-scaffold-"));
for (const [file, text] of Object.entries(scaffoldFiles({ namespace: "scaffolded", tool: "greet" }))) {
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, file), text);
}
symlinkSync(workspaceModules, join(dir, "node_modules"), "dir");

await import(pathToFileURL(join(dir, "test/greet.test.ts")).href);
