// createAgentMcpServer(host, agent, options, caller) → a low-level MCP SDK v2 `Server` serving one
// agent's tools. The same factory backs both protocol eras (2026-07-28 per-request and the 2025
// revisions), over HTTP (one instance per request) and stdio (one per connection); what differs
// between the eras is the era object's (era.ts, era-2025/, era-2026/), never a branch here.
// The server's pieces: its capabilities and round-state check (here), the era's own requests
// (era.serve), the agent's skills as prompts (skill-prompts.ts), its tools' UIs as `ui://`
// resources with the MCP Apps extension advertised (ui-resources.ts), tools/list (serving.ts's
// listTools: a catalogue snapshot, a host Run, one page at a time in a deterministic order, by
// name) and tools/call (tools-call.ts); the 2026-07-28 fast lane (era-2026/fast-lane.ts) answers
// those two the same way without an instance. What the handlers share is serving.ts.
// Invariants: a protocol error is answered only for a malformed request (a bogus cursor) or an
// unexpected host failure, whose details stay in the host log; a tool failure is a result with
// isError (tools-call.ts); nothing here holds state a later request needs: what a session
// remembers (its conversation, its log level) is handed in.
import { UI_EXTENSION_ID, UI_MIME_TYPE } from "@airlock/sdk";
import { Server } from "@modelcontextprotocol/server";
import type { AirlockHost } from "../../contracts/host.ts";
import type { EraName, ProtocolEra } from "./era.ts";
import { ERA_2025 } from "./era-2025/era.ts";
import { ERA_2026 } from "./era-2026/era.ts";
import { verifyRoundState } from "./era-2026/round-state.ts";
import { listTools, type McpCallerContext, type McpServerOptions } from "./serving.ts";
import { registerSkillPrompts } from "./skill-prompts.ts";
import { registerToolsCall } from "./tools-call.ts";
import { registerUiResources } from "./ui-resources.ts";

export type { McpCallerContext, McpServerOptions } from "./serving.ts";

/** The era objects by the name the SDK negotiated. */
const ERAS: Record<EraName, ProtocolEra> = { legacy: ERA_2025, modern: ERA_2026 };

export function createAgentMcpServer(
  host: AirlockHost,
  agent: string,
  options: McpServerOptions,
  caller: McpCallerContext,
): Server {
  const era = ERAS[caller.era];
  const eraCapabilities = era.capabilities();
  // MCP Apps (SEP-1865, through SEP-1724's extensions) beside the era's own (2026-07-28 tasks)
  const extensions = {
    [UI_EXTENSION_ID]: { mimeTypes: [UI_MIME_TYPE] },
    ...(eraCapabilities.extensions as Record<string, unknown> | undefined),
  };
  const server = new Server(
    { name: options.serverName ?? "airlock", version: host.version },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: {},
        resources: { listChanged: true }, // the UIs follow the served tools: announced with them
        ...eraCapabilities,
        extensions,
      },
      instructions: `Tools of the Airlock agent "${agent}". Each tool runs sandboxed; a failed call returns isError with a reason and its code in _meta["airlock/errorCode"].`,
      // 2026-07-28 rounds (approvals, ctx.elicit, missing secrets): state sealed by this host
      // (era-2026/round.ts). Verified whatever the era: a request that carries one is checked alike.
      requestState: { verify: (state) => verifyRoundState(host, state) },
    },
  );
  era.serve(server, host, agent, caller.setLogLevel); // 2025: tasks/*, logging/setLevel

  registerSkillPrompts(server, host, agent); // skills the agent has enabled (skill-prompts.ts)
  registerUiResources(server, { host, agent, options, caller }); // its tools' UIs (ui-resources.ts)

  server.setRequestHandler("tools/list", (request) =>
    listTools({ host, agent, options, caller }, request.params?.cursor),
  );

  registerToolsCall(server, { host, agent, era, options, caller }); // tools-call.ts
  return server;
}
