// Stage "secrets": every secret the tool requires is set for the agent. When some are missing
// and the operator lets the person enter all of them, the caller's channel points the person at
// the host's page and the call goes on once they are set (people/pipeline-steps.ts secretsStep);
// otherwise AIRLOCK_TOOL_SECRET_MISSING names the keys (never a value).
// Invariants: a secret value never passes here, only keys; nothing runs without its secrets.
import { missingSecrets } from "../../catalogue/agent-tools.ts";
import { secretsStep } from "../../people/pipeline-steps.ts";
import { type CallStage, reached, stop } from "./types.ts";

export const secretsStage: CallStage = {
  name: "secrets",
  async enter(call) {
    if (call.host !== undefined) return undefined; // a host tool skips this stage (docs/pipeline.md)
    const current = reached(call.current, "the catalogue entry");
    const state = reached(call.state, "the agent's state");
    const missing = missingSecrets(current, state.secretKeys);
    if (missing.length === 0) return undefined;
    const { run, toolName, callId, input } = call;
    const supplied = await secretsStep(
      call.deps,
      { run, entry: current, toolName, callId, input },
      missing,
      call.options,
    );
    if (typeof supplied === "object") return supplied;
    if (supplied) return undefined;
    return stop(
      "AIRLOCK_TOOL_SECRET_MISSING",
      `Tool ${toolName} cannot run: an operator must set the secret(s) ${missing.join(", ")}.`,
    );
  },
};
