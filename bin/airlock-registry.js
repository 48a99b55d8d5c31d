#!/usr/bin/env node
// `airlock-registry` on PATH (npm link in the checkout): runs registry/bin/airlock-registry.ts on Node 24 (launch.js).
import { launch } from "./launch.js";

launch("registry/bin/airlock-registry.ts", ["--no-node-snapshot"]);
