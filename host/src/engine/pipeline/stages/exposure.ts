// Stage "exposure": only a tool in the run's snapshot can be called (the up-front registration
// rule: a tool registered, enabled or installed after the run started is not exposed). The
// refusal, AIRLOCK_TOOL_NOT_EXPOSED, lists the run's tools (up to 30) so the model can retry.
// A tool the host answers itself is exposed when the run lists it (run.hostTools).
// Invariants: reads the snapshot only (run.ts took it); never the live catalogue.
import type { RunContext } from "../call-types.ts";
import { type CallStage, stop } from "./types.ts";

function describeAvailable(run: RunContext): string {
  const ids = [...run.snapshot.keys()];
  if (ids.length === 0) return "This run exposes no tools.";
  const shown = ids.slice(0, 30).join(", ");
  return `Tools available in this run: ${shown}${ids.length > 30 ? `, … (${ids.length} in all)` : ""}.`;
}

export const exposureStage: CallStage = {
  name: "exposure",
  enter(call) {
    if ((call.entry !== undefined || call.host !== undefined) && call.id !== undefined) return undefined;
    return stop(
      "AIRLOCK_TOOL_NOT_EXPOSED",
      `Tool "${call.toolName}" is not exposed in this run. ${describeAvailable(call.run)}`,
    );
  },
};
