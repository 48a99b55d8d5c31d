#!/usr/bin/env node
// `airlock` on PATH (npm link in the checkout): runs host/bin/airlock.ts on Node 24 (launch.js).
import { launch } from "./launch.js";

launch("host/bin/airlock.ts", ["--no-node-snapshot"]);
