// Launchers that put `airlock`, `airlock-plugin` and `airlock-registry` on PATH (`npm link` in the
// checkout, README "Set up"). The bins are TypeScript run by Node 24's type stripping; the `node`
// on a newcomer's PATH may be older, so a launcher runs the bin with the checkout's own Node 24
// (the `node` dev dependency, node_modules/node/bin/node) unless it already is Node 24.
// Plain JavaScript that loads on any Node from 18 on. Invariants: the bin sees the same argv,
// environment and working directory; on Node 24 the process is replaced (process.execve, same
// pid, signals reach the bin directly); elsewhere the bin runs as a child whose exit status (or
// signal) becomes the launcher's, SIGTERM/SIGHUP are passed on to it, and SIGINT (Ctrl+C, which
// the terminal sends to the bin as well) is not sent twice.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const CHECKOUT = join(dirname(fileURLToPath(import.meta.url)), "..");

function node24() {
  if (process.versions.node.split(".")[0] === "24") return process.execPath;
  const pinned = join(CHECKOUT, "node_modules", "node", "bin", "node");
  if (existsSync(pinned)) return pinned;
  process.stderr.write(
    `error: AIRLOCK_CLI_NODE_VERSION: Airlock needs Node 24 (this is ${process.version}) — run \`npm install\` in ${CHECKOUT}, which brings it\n`,
  );
  process.exit(1);
}

/** Runs `bin` (a path relative to the checkout) with `flags` before it and this argv after it. */
export function launch(bin, flags = []) {
  const node = node24();
  const args = [...flags, join(CHECKOUT, bin), ...process.argv.slice(2)];
  if (typeof process.execve === "function") process.execve(node, [node, ...args], process.env);
  const child = spawn(node, args, { stdio: "inherit" });
  // Ctrl+C reaches the whole process group, the bin included: the launcher only outlives it.
  // A signal sent to the launcher alone (kill <pid>) is passed on.
  process.on("SIGINT", () => undefined);
  for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.once("error", (error) => {
    process.stderr.write(`error: AIRLOCK_CLI_LAUNCH: cannot run ${node}: ${error.message}\n`);
    process.exit(1);
  });
  child.once("exit", (code, signal) => {
    if (signal !== null) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
