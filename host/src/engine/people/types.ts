// What a caller (the MCP server) offers a tool call so that a person can take part in it: the
// approval at the client, ctx.elicit, and missing secrets entered on the host's page. The
// pipeline asks through these; a caller that offers none keeps the operator's path.
// Invariants: every answer reaching the pipeline is plain data the host validated; a channel
// never hangs past the call's signal; "input required" (the 2026-07-28 round trip) is a
// thrown AIRLOCK_INPUT_REQUIRED that ends the call's round, never a result. The types are
// declared in contracts/people.ts (contracts import nothing above them); the values live here.
import type { ApprovalMode, PeoplePolicy } from "../../contracts/people.ts";

export type {
  ApprovalMode,
  ApprovalPath,
  ApprovalQuestion,
  ClientDecision,
  ElicitRequest,
  ElicitResult,
  OperatorRound,
  PeopleChannel,
  PeoplePolicy,
  SecretOutcome,
  SecretQuestion,
  UrlOutcome,
  UrlQuestion,
} from "../../contracts/people.ts";

export const APPROVAL_MODES: readonly ApprovalMode[] = ["operator", "client", "auto"];

export const DEFAULT_POLICY: PeoplePolicy = {
  approval: "operator",
  destructive: null,
  tools: {},
  askSecrets: [],
};
