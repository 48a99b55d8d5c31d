#!/usr/bin/env -S node --no-node-snapshot
// The `airlock` executable: host/src/cli/main.ts does the work. Node's compile cache is turned on
// first (host/src/compile-cache.ts), so the modules imported after it load from the cache.
import { enableAirlockCompileCache } from "../src/compile-cache.ts";

enableAirlockCompileCache();
const { main } = await import("../src/cli/main.ts");
await main();
