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
      "The Mcp-Session-Id was not issued by a host sharing this master key, has expired, or belongs to another agent or token; initialize again.",
  },
  AIRLOCK_MCP_SESSION_REQUIRED: {
    status: 400,
    description:
      "A 2025-era request other than initialize arrived without an Mcp-Session-Id header (2026-07-28 requests need none).",
  },
  AIRLOCK_MCP_BAD_REQUEST: {
    status: 400,
    description:
      "The HTTP request is not an MCP message this endpoint takes: not JSON, too large, a batch, an unsupported MCP-Protocol-Version, or a GET without Accept: text/event-stream.",
  },
  AIRLOCK_MCP_STREAM_LIMIT: {
    status: 429,
    description:
      "This token already holds its share of open MCP notification streams on this host process; close one first.",
  },
});
