#!/usr/bin/env -S node --no-node-snapshot
// The `airlock` executable: host/src/surfaces/cli/main.ts does the work. Node's compile cache is turned on
// first (sdk/src/compile-cache.ts), so the modules imported after it load from the cache.
import { enableAirlockCompileCache } from "@airlock/sdk/compile-cache";

enableAirlockCompileCache();
const { main } = await import("../src/surfaces/cli/main.ts");
await main();
