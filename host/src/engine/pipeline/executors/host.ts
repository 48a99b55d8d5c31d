// Executor "host": a tool the host answers itself (today the skills' airlock:skills and
// airlock:skill, engine/skills/skill-tools.ts), listed in the run's hostTools. It passed the
// same stages as a plugin tool up to here, except those docs/pipeline.md says a host tool
// skips (enablement, secrets, approval, validation, output: it is not a catalogue entry, needs
// no secret, is read-only, checks its own input with its own codes, and is bounded by the host).
// Invariants: an answer with an errorCode ends the call as that code with the answer's text
// (tool.failed, like every refusal); the answer's audit details reach the call's audit row.
import type { HostTool, Stop } from "../call-types.ts";
import type { Call } from "../stages/types.ts";

export async function executeHost(call: Call, tool: HostTool): Promise<{ result: unknown } | Stop> {
  const answer = await tool.answer(call.input, call.options);
  if (answer.details !== undefined) call.auditDetails = answer.details;
  if (answer.errorCode === undefined) return { result: answer.result };
  const message = answer.result.content.map((p) => (p.type === "text" ? p.text : "")).join("");
  return { code: answer.errorCode, message };
}
