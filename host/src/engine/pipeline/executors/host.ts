// Executor "host": a tool the host answers itself (the skills' airlock:skills and airlock:skill,
// engine/skills/skill-tools.ts; code mode's search_tools and run_code, engine/code-mode/
// host-tools.ts), listed in the run's hostTools. It passed the same stages as a plugin tool up
// to here, except those docs/pipeline.md says a host tool skips (enablement, secrets, approval,
// validation, output). The answer gets the call's id and the run's inner Run (run_code's inner
// calls go through it, each a full pipeline call).
// Invariants: an answer with an errorCode ends the call as that code with the answer's own
// result (tool.failed, like every refusal; its text, cut to 500 characters, is the event's
// message); the answer's audit details are added to the call's audit row.
import type { HostTool, Stop } from "../call-types.ts";
import type { Call } from "../stages/types.ts";

export async function executeHost(call: Call, tool: HostTool): Promise<{ result: unknown } | Stop> {
  const answer = await tool.answer(call.input, call.options, { callId: call.callId, run: call.run.inner });
  if (answer.details !== undefined) call.auditDetails = { ...call.auditDetails, ...answer.details };
  if (answer.errorCode === undefined) return { result: answer.result };
  const text = answer.result.content.map((p) => (p.type === "text" ? p.text : "")).join("");
  return { code: answer.errorCode, message: text.slice(0, 500), result: answer.result };
}
