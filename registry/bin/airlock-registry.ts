#!/usr/bin/env -S node --no-node-snapshot
// `airlock-registry` entry point (run with Node 24: type stripping, no build step). Node's compile
// cache is turned on first (@airlock/sdk/compile-cache), so the modules imported after it load
// from the cache.
import { enableAirlockCompileCache } from "@airlock/sdk/compile-cache";

enableAirlockCompileCache();
const { runRegistryCli } = await import("../src/cli.ts");
const code = await runRegistryCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});
process.exitCode = code;
