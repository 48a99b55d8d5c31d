#!/usr/bin/env node
// The `airlock-plugin` executable: runs the dispatcher with the process's streams and env.
// Needs Node 24 (type stripping); see sdk/README.md. Node's compile cache is turned on first
// (src/compile-cache.ts), so the modules imported after it load from the cache.
import { enableAirlockCompileCache } from "../src/compile-cache.ts";

enableAirlockCompileCache();
const { main } = await import("../src/cli/main.ts");
const code = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
