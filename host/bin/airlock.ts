#!/usr/bin/env -S node --no-node-snapshot
// The `airlock` executable: host/src/cli/main.ts does the work.
import { main } from "../src/cli/main.ts";

await main();
