#!/usr/bin/env -S node --no-node-snapshot
// The `airlock` executable. Node's compile cache is turned on first (sdk/src/compile-cache.ts);
// then host/src/surfaces/cli/bundle/load.ts loads the CLI (surfaces/cli/main.ts) from the host
// bundle, rebuilt first if a source changed since it was built, and runs it.
import { enableAirlockCompileCache } from "@airlock/sdk/compile-cache";

enableAirlockCompileCache();
const { loadCli } = await import("../src/surfaces/cli/bundle/load.ts");
const { main } = await loadCli();
await main();
