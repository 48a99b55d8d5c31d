// `npm test`: lint and format check (biome), type check (tsc), the host bundle when stale
// (host/src/surfaces/cli/bundle/build.ts), the test suites (vitest), then
// the benchmark smoke run alone (vitest.bench.config.ts). Arguments go to the main vitest run;
// with arguments (a subset of suites) the smoke run is left out.
// Stops at the first failing step and exits with its status.
import { spawnSync } from "node:child_process";

const steps = [
  ["biome", ["ci", "."]],
  ["tsc", ["-p", "."]],
  // the host bundle the suites' `airlock` processes run, rebuilt here if a source changed since
  ["node", ["host/src/surfaces/cli/bundle/build.ts", "--if-stale"]],
  ["vitest", ["run", ...process.argv.slice(2)]],
];
if (process.argv.length <= 2) steps.push(["vitest", ["run", "--config", "vitest.bench.config.ts"]]);

for (const [cmd, args] of steps) {
  process.stdout.write(`\n> ${cmd} ${args.join(" ")}\n`);
  const r = spawnSync(cmd, args, { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
