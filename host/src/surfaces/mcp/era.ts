// ProtocolEra: what differs between the MCP protocol eras an agent's server speaks, behind one
// interface, so that the shared server factory (server.ts) and the shared people and tasks glue
// (people.ts, tasks.ts) never ask which era they serve. Two implementations, one folder each:
// - era-2025/: the 2024-11-05 … 2025-11-25 revisions: initialize and sessions (era-2025/legacy-http.ts),
//   the logging utility with a session's level, the tasks utility (`tasks/*` methods), and
//   people asked by elicitation requests pushed to the client while the call waits;
// - era-2026/: 2026-07-28: no session (server/discover is the SDK's), a log level per request,
//   the tasks extension (`resultType: "task"`), and people asked by input_required rounds whose
//   request state this host seals (era-2026/round-state.ts).
// Invariants: an era object holds no state (one per era, shared by every server instance); what
// lives across one tools/call is in the EraRound it opens for that call; each era produces its
// revision's wire, so the choice of era is the only thing that decides what goes out.
import type {
  InputRequiredResult,
  LoggingLevel,
  Server,
  ElicitResult as WireElicitResult,
} from "@modelcontextprotocol/server";
import type { AirlockHost, ModelTool } from "../../contracts/host.ts";
import type { ApprovalPath, OperatorRound } from "../../contracts/people.ts";
import type { TaskView } from "../../contracts/tasks.ts";
import type { McpExchange } from "./exchange.ts";

/** The era the SDK negotiated for a request or connection (its own names). */
export type EraName = "legacy" | "modern";

export interface ProtocolEra {
  readonly name: EraName;
  /** Server capabilities the era adds after tools and prompts (logging, tasks), a fresh object. */
  capabilities(): Record<string, unknown>;
  /** Registers the era's own request handlers (2025: tasks/*, logging/setLevel) on one instance. */
  serve(
    server: Server,
    host: AirlockHost,
    agent: string,
    setLogLevel: ((level: LoggingLevel) => Promise<void>) | undefined,
  ): void;
  /**
   * Whether this tools/call becomes a task, and with which TTL; throws the protocol error of a
   * task request the tool cannot honour.
   */
  taskRequest(
    params: Record<string, unknown>,
    tool: ModelTool,
    envelope: Record<string, unknown> | undefined,
  ): { ttlMs?: number } | undefined;
  /** The tools/call answer once the task is recorded. */
  taskResult(view: TaskView): Record<string, unknown>;
  /**
   * Sends a tool's log line as the request itself asks (2026-07-28), or answers undefined: the
   * line then goes by the session's level as a notification (mapping.ts).
   */
  requestLog(
    exchange: McpExchange,
    level: LoggingLevel,
    message: string,
    logger: string,
  ): Promise<void> | undefined;
  /** The elicitation capability the client declared (undefined or null: none). */
  declaredElicitation(exchange: McpExchange): Record<string, unknown> | null | undefined;
  /** Opens one tools/call's round of questions to people; may throw AIRLOCK_MRTR_STATE_INVALID. */
  openRound(call: RoundCall): EraRound;
}

/** What one tools/call's round of questions knows of the call. */
export interface RoundCall {
  host: AirlockHost;
  agent: string;
  /** The request's exchange with its client (exchange.ts). */
  exchange: McpExchange;
  /** The tool as the client names it. */
  wireName: string;
  input: unknown;
  /** Origin of the host's pages (http://host:port) when they are reachable; undefined on stdio. */
  pagesOrigin: string | undefined;
  /** 2026-07-28: how long a retry waits for the operator's decision (default in era-2026/round.ts). */
  approvalWaitMs?: number;
  log: (error: unknown) => void;
}

/** The client's answer to a URL question, and how to tell it the page served its purpose. */
export interface AskedUrl {
  answer: WireElicitResult;
  /** 2025-11-25: the elicitation-complete notification (best effort); absent when the era has none. */
  complete?: () => Promise<void>;
}

/** How one tools/call asks people in its era (people.ts builds the PeopleChannel on it). */
export interface EraRound {
  /** The path an approval answered at the client took (audited). */
  readonly approvalPath: ApprovalPath;
  /** How long a call waits after the person opened a page: for missing secrets, for any other page. */
  readonly waitMs: { secrets: number; urls: number };
  /** A form question: its answer (2025: asked and awaited; 2026: from the round, or the round ends). */
  form(
    key: string,
    message: string,
    schema: unknown,
    signal: AbortSignal | undefined,
  ): Promise<WireElicitResult>;
  /** A URL question (a host page). */
  url(key: string, message: string, url: string, signal: AbortSignal | undefined): Promise<AskedUrl>;
  /** 2026-07-28: operator approvals as a round trip; undefined: the call waits in-request. */
  operatorRound(): OperatorRound | undefined;
  /**
   * The operator decides: points the client at the approval page when the era does so while
   * the call waits (2025); answers how to say the page is done, or undefined.
   */
  offerApprovalPage(approvalId: string, toolName: string): (() => Promise<void>) | undefined;
  /** The input_required result when the round ended on a question (2026-07-28), else undefined. */
  finish(errorCode: string | undefined): InputRequiredResult | undefined;
}

/** Who an MCP HTTP request is from, once http.ts has authenticated it for the agent. */
export interface HttpCaller {
  agent: string;
  /** The request's token: its id, and the agent it acts for (null: an operator's). */
  token: { id: string; agent: string | null };
}

/**
 * One era's side of the MCP HTTP endpoint (era-2025/legacy-http.ts, era-2026/modern-http.ts):
 * http.ts authenticates, reads the body, asks the SDK which era the request speaks and hands it
 * over; the era answers it whole.
 */
export interface EraHttp {
  handle(request: Request, body: unknown, caller: HttpCaller): Promise<Response>;
  close(): Promise<void>;
}
