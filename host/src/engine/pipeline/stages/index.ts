// The call path: every tool call passes these stages, in this order, whatever executes it.
// `enter` runs in list order until a stage stops the call; then `leave` runs in reverse order
// for every stage the call reached (stages/types.ts). So a call is, in time: span opened →
// tool.started → subject → exposure → input safety → enablement → secrets → before-hooks →
// approval → validation → execute → output → after-hooks → audit → tool.completed/failed →
// span ended. docs/pipeline.md describes each stage; a test checks it against this list.
// Invariants: the list is the only place the order is written; each stage is one file here.
import { afterHooksStage } from "./after-hooks.ts";
import { approvalStage } from "./approval.ts";
import { auditStage } from "./audit.ts";
import { beforeHooksStage } from "./before-hooks.ts";
import { enablementStage } from "./enablement.ts";
import { eventsStage } from "./events.ts";
import { executeStage } from "./execute.ts";
import { exposureStage } from "./exposure.ts";
import { inputSafetyStage } from "./input-safety.ts";
import { outputStage } from "./output.ts";
import { secretsStage } from "./secrets.ts";
import { subjectStage } from "./subject.ts";
import { tracingStage } from "./tracing.ts";
import type { CallStage } from "./types.ts";
import { validationStage } from "./validation.ts";

export interface ListedStage {
  /** The stage's name (its `name`). */
  readonly name: string;
  /** Its file, relative to host/src/engine/pipeline/. */
  readonly file: string;
  readonly stage: CallStage;
}

export const CALL_STAGES = [
  { name: "tracing", file: "stages/tracing.ts", stage: tracingStage },
  { name: "events", file: "stages/events.ts", stage: eventsStage },
  { name: "audit", file: "stages/audit.ts", stage: auditStage },
  { name: "after-hooks", file: "stages/after-hooks.ts", stage: afterHooksStage },
  { name: "subject", file: "stages/subject.ts", stage: subjectStage },
  { name: "exposure", file: "stages/exposure.ts", stage: exposureStage },
  { name: "input-safety", file: "stages/input-safety.ts", stage: inputSafetyStage },
  { name: "enablement", file: "stages/enablement.ts", stage: enablementStage },
  { name: "secrets", file: "stages/secrets.ts", stage: secretsStage },
  { name: "before-hooks", file: "stages/before-hooks.ts", stage: beforeHooksStage },
  { name: "approval", file: "stages/approval.ts", stage: approvalStage },
  { name: "validation", file: "stages/validation.ts", stage: validationStage },
  { name: "execute", file: "stages/execute.ts", stage: executeStage },
  { name: "output", file: "stages/output.ts", stage: outputStage },
] as const satisfies readonly ListedStage[];
