// The 2025 revisions (2024-11-05 … 2025-11-25) as a ProtocolEra (../era.ts): the server offers
// the logging utility (a session picks its level with logging/setLevel; lines go out as
// notifications by that level) and the tasks utility (tasks.ts); people are asked by elicitation
// requests while the call waits (round.ts); what the client can answer is what it declared at
// initialize (replayed into each fresh instance by legacy-http.ts).
// Invariants: stateless (one object for every 2025-era server instance); the session's level is
// kept by the caller (setLogLevel), never here.
import type { ProtocolEra } from "../era.ts";
import { LegacyRound } from "./round.ts";
import { legacyTaskCapabilities, legacyTaskRequest, legacyTaskResult, serveLegacyTasks } from "./tasks.ts";

export const ERA_2025: ProtocolEra = {
  name: "legacy",
  capabilities: () => ({ logging: {}, ...legacyTaskCapabilities() }),
  serve(server, host, agent, setLogLevel) {
    serveLegacyTasks(server, host, agent);
    server.setRequestHandler("logging/setLevel", async (request) => {
      await setLogLevel?.(request.params.level);
      return {};
    });
  },
  taskRequest: (params, tool) => legacyTaskRequest(params, tool),
  taskResult: legacyTaskResult,
  requestLog: () => undefined,
  declaredElicitation: (exchange) => exchange.clientCapabilities()?.elicitation,
  openRound: (call) => new LegacyRound(call),
};
