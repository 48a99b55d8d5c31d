// Stage "subject": who the call is for, and whether the host still takes calls. A closing
// host answers AIRLOCK_HOST_CLOSED; an end user named in CallOptions.subject that is not a
// well-formed subject (oauth/subject.ts) is refused with AIRLOCK_TOOL_SUBJECT_INVALID.
// Invariants: the refused value is never repeated in the audit row (the audit stage reads
// call.subjectProblem); nothing about the tool is looked at yet.
import { type CallStage, stop } from "./types.ts";

export const subjectStage: CallStage = {
  name: "subject",
  enter(call) {
    if (call.deps.closed())
      return stop("AIRLOCK_HOST_CLOSED", "The host is shutting down; no tool can run now.");
    if (call.subjectProblem !== null) return stop("AIRLOCK_TOOL_SUBJECT_INVALID", call.subjectProblem);
    return undefined;
  },
};
