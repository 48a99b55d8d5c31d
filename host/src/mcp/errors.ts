// The error catalogue of the MCP surface (AIRLOCK_MCP_*). Tool-level codes reach the model in
// a result's `_meta["airlock/errorCode"]`; session-level ones answer the HTTP request.
import { defineErrorCodes } from "@airlock/sdk/errors";

export const MCP_ERRORS = defineErrorCodes({
  AIRLOCK_MCP_UNKNOWN_TOOL: {
    status: 404,
    description: "tools/call named a tool this agent's MCP server does not serve; list tools again.",
  },
  AIRLOCK_MCP_SESSION_NOT_FOUND: {
    status: 404,
    description:
      "The Mcp-Session-Id is unknown, expired, or belongs to another agent or token; initialize again.",
  },
  AIRLOCK_MCP_SESSION_REQUIRED: {
    status: 400,
    description: "A request other than initialize arrived without an Mcp-Session-Id header.",
  },
});
