// `npm test`: lint and format check (biome), type check (tsc), then the test suites (vitest).
// Stops at the first failing step and exits with its status.
import { spawnSync } from "node:child_process";

const steps = [
  ["biome", ["ci", "."]],
  ["tsc", ["-p", "."]],
  ["vitest", ["run", ...process.argv.slice(2)]],
];

for (const [cmd, args] of steps) {
  process.stdout.write(`\n> ${cmd} ${args.join(" ")}\n`);
  const r = spawnSync(cmd, args, { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
