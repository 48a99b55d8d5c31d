// What the people steps (pipeline-steps.ts, operator-round.ts) need from the call pipeline,
// declared here so that people/ imports nothing of pipeline/: the pipeline calls these steps and
// hands them its deps and its call, which satisfy these shapes as they are (pipeline → people,
// never back).
// Invariants: types only; each field is one the steps use, nothing more.
import type { HostEventMap } from "../../contracts/host.ts";
import type { ApprovalRegistry } from "../../state/cluster/approval-registry.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import type { CatalogueEntry } from "../catalogue/catalogue.ts";

/** Why a step ends the call (the pipeline's Stop, by shape). */
export interface StepStop {
  code: string;
  message: string;
}

/** The run a call belongs to (the pipeline's RunContext, by shape). */
export interface StepRun {
  id: string;
  agent: string;
  conversationId: string;
  autoApprove: boolean;
}

/** The call a step decides about. */
export interface StepCall {
  run: StepRun;
  entry: CatalogueEntry;
  toolName: string;
  callId: string;
  input: Record<string, unknown>;
}

/** The host parts the steps use (a subset of the pipeline's PipelineDeps). */
export interface PeopleDeps {
  store: Store;
  /** Host-wide auto-approval (operator option). */
  autoApprove: boolean;
  approvals: ApprovalRegistry;
  events: {
    emit(type: "permission.required", event: HostEventMap["permission.required"]): void;
  };
  agentStates: { load(agent: string): Promise<{ secretKeys: ReadonlySet<string> }> };
  audit(entry: AuditInput): Promise<void>;
  report(what: string, error: unknown): void;
}
