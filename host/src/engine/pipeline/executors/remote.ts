// Executor "remote": a tool of a remote MCP server installed as a plugin runs on that server,
// called over the egress gate (engine/remote/execute.ts does the call: listing, pin check,
// deadline, progress, the OAuth broker's token).
// Invariants: the same ExecuteRequest as the sandbox gets, after the same stages; a failure is
// a Stop with an AIRLOCK_* code (the remote executor's contract), never a throw.
import type { ExecuteRequest, Stop } from "../call-types.ts";
import type { PipelineDeps } from "../deps.ts";

export async function executeRemote(
  deps: PipelineDeps,
  req: ExecuteRequest,
): Promise<{ result: unknown } | Stop> {
  const remote = deps.remote;
  if (remote === undefined) {
    return {
      code: "AIRLOCK_TOOL_FAILED",
      message: `tool ${req.entry.id} failed: no remote executor in this host`,
    };
  }
  return remote.execute(req);
}
