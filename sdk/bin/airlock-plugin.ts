#!/usr/bin/env node
// The `airlock-plugin` executable: runs the dispatcher with the process's streams and env.
// Needs Node 24 (type stripping); see sdk/README.md.
import { main } from "../src/cli/main.ts";

const code = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
