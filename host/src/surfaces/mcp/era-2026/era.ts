// The 2026-07-28 revision as a ProtocolEra (../era.ts): no session and no logging/setLevel (a
// request's own envelope says which log levels it wants), the tasks extension (tasks.ts), and
// people asked by input_required rounds with sealed request state (round.ts). `server/discover`
// is answered by the SDK from the server's capabilities. What the client can answer is what the
// request's envelope declares (every request carries its client capabilities).
// Invariants: stateless (one object for every 2026 server instance); nothing a later request
// needs is kept in the process: it travels in the sealed request state.
import { CLIENT_CAPABILITIES_META_KEY } from "@modelcontextprotocol/server";
import type { ProtocolEra } from "../era.ts";
import { ModernRound } from "./round.ts";
import { modernTaskCapabilities, modernTaskRequest, modernTaskResult } from "./tasks.ts";

export const ERA_2026: ProtocolEra = {
  name: "modern",
  capabilities: modernTaskCapabilities,
  serve: () => undefined,
  taskRequest: (_params, tool, envelope) => modernTaskRequest(tool, envelope),
  taskResult: modernTaskResult,
  requestLog: (exchange, level, message, logger) => exchange.log(level, message, logger),
  declaredElicitation: (exchange) =>
    (
      exchange.envelope?.[CLIENT_CAPABILITIES_META_KEY] as
        | { elicitation?: Record<string, unknown> }
        | undefined
    )?.elicitation,
  openRound: (call) => new ModernRound(call),
};
