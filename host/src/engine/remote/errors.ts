// Error catalogue of remote MCP servers installed as plugins (host/src/engine/remote/). Address and host
// refusals of the egress gate keep their AIRLOCK_FETCH_* codes (host/src/isolation/egress/errors.ts).
import { defineErrorCodes, type ErrorFactory, errorFactory } from "@airlock/sdk/errors";

export const REMOTE_ERRORS = defineErrorCodes({
  AIRLOCK_REMOTE_SPEC_INVALID: {
    status: 400,
    description:
      "A remote MCP install spec or option is wrong: not `mcp+https://…` (or `mcp+http://` to an allowed private address), no --namespace, a bad --header or --oauth-* option.",
  },
  AIRLOCK_REMOTE_NAMESPACE_TAKEN: {
    status: 409,
    description: "A plugin (remote or packaged) is already installed under that namespace.",
  },
  AIRLOCK_REMOTE_UNREACHABLE: {
    status: 502,
    description: "The remote MCP server could not be reached (connection refused, reset, DNS, TLS).",
  },
  AIRLOCK_REMOTE_PROTOCOL: {
    status: 502,
    description:
      "The remote MCP server answered something that is not a valid MCP answer (an HTTP error, a malformed message, a JSON-RPC error).",
  },
  AIRLOCK_REMOTE_TIMEOUT: {
    status: 504,
    description: "The remote MCP server did not answer a listing or the handshake within its time limit.",
  },
  AIRLOCK_REMOTE_REDIRECT_REFUSED: {
    status: 502,
    description:
      "The remote MCP server answered with a redirect; Airlock never follows one (the endpoint is pinned to the installed URL).",
  },
  AIRLOCK_REMOTE_RESPONSE_TOO_LARGE: {
    status: 502,
    description:
      "A response of the remote MCP server passed the byte limit (the tool's maxResultBytes) and was aborted.",
  },
  AIRLOCK_REMOTE_TOOL_NAME_INVALID: {
    status: 422,
    description:
      "A remote tool's name cannot be written as an Airlock tool name (`^[a-z][a-zA-Z0-9_]{0,63}$` after `-`/`.` become `_`), or two of its names map to one.",
  },
  AIRLOCK_REMOTE_TOOL_INVALID: {
    status: 422,
    description:
      "A remote tool definition is malformed (no input schema object, an over-long description, a lone surrogate, an unreadable title).",
  },
  AIRLOCK_REMOTE_DEFINITION_CHANGED: {
    status: 409,
    description:
      "The remote server changed a tool's definition (name, description or schemas) since the operator pinned it; it is not served until the operator reviews the change.",
  },
  AIRLOCK_REMOTE_NO_CHANGE: {
    status: 409,
    description: "A review was asked for, but the remote server's definitions equal the pinned ones.",
  },
  AIRLOCK_REMOTE_NOT_REMOTE: {
    status: 404,
    description: "No remote MCP server is installed under that namespace.",
  },
  AIRLOCK_REMOTE_TOOL_UNKNOWN: {
    status: 404,
    description: "The remote plugin has no pinned tool of that name.",
  },
  AIRLOCK_REMOTE_COMMAND_NOT_ALLOWED: {
    status: 403,
    description:
      "An mcp+stdio: install names a command the operator did not allow with --allow-command (the exact command); the host starts no other.",
  },
  AIRLOCK_REMOTE_UNAUTHORIZED: {
    status: 502,
    description:
      "The remote MCP server answered 401: the header secret or the OAuth connection Airlock sent is missing or not accepted.",
  },
  AIRLOCK_REMOTE_SERVER_REQUEST_REFUSED: {
    status: 502,
    description:
      "The remote MCP server sent Airlock a request of its own (sampling, elicitation, roots): Airlock declares no client capabilities and refuses it; the call ends.",
  },
});

export type RemoteErrorCode = keyof typeof REMOTE_ERRORS;
export const remoteError: ErrorFactory<typeof REMOTE_ERRORS> = errorFactory(REMOTE_ERRORS);
