#!/usr/bin/env node
// `airlock-plugin` on PATH (npm link in the checkout): runs sdk/bin/airlock-plugin.ts on Node 24 (launch.js).
import { launch } from "./launch.js";

launch("sdk/bin/airlock-plugin.ts", []);
