// Stage "events": the call's host events. tool.started as the call begins (before any check,
// so every tool.completed or tool.failed has its start), and at its end tool.completed (a
// result, isError as the tool said) or tool.failed (a Stop: its code, message and blocked),
// each with the tool's presentation. tool.progress is the executor's (execute stage).
// Invariants: never stops a call; one start and one end event per call; a throwing listener
// is the bus's to report (pipeline/events.ts) and never disturbs the call.
import type { CallStage } from "./types.ts";

export const eventsStage: CallStage = {
  name: "events",
  enter(call) {
    const { base, presentation } = call;
    call.deps.events.emit("tool.started", presentation === undefined ? base : { ...base, presentation });
    return undefined;
  },
  leave(call) {
    const { base, presentation, end } = call;
    if (end === undefined) return;
    const withPresentation = <T extends object>(event: T) =>
      presentation === undefined ? event : { ...event, presentation };
    const { error, blocked, durationMs } = end;
    if (error === undefined) {
      call.deps.events.emit(
        "tool.completed",
        withPresentation({ ...base, isError: end.result.isError === true, durationMs }),
      );
    } else {
      call.deps.events.emit("tool.failed", withPresentation({ ...base, error, blocked, durationMs }));
    }
  },
};
