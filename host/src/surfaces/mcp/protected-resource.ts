// OAuth 2.1 protected-resource metadata (RFC 9728) for the agents' MCP endpoints, at
// /.well-known/oauth-protected-resource/mcp/<agent> (the path the 401's WWW-Authenticate names)
// and at /.well-known/oauth-protected-resource for the server as a whole.
// Invariant: an agent's document names this host (its public URL when the operator set one, else
// the request's origin: authz/config.ts externalBase) as the one authorization server
// (host/src/surfaces/http/authz/, RFC 8414 metadata at /.well-known/oauth-authorization-server), whose access
// tokens are audience-bound to that agent's MCP URL; both documents answer CORS for any origin
// without credentials (authz/cors.ts), for browser-based clients; static agent and operator tokens keep
// working beside OAuth, and the document says so.
import type { Hono } from "hono";
import type { AirlockHost } from "../../contracts/host.ts";
import { externalBase } from "../http/authz/config.ts";
import { mountPublicCors } from "../http/authz/cors.ts";
import type { ExtraPath } from "../http/openapi.ts";

export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

export function protectedResourceMetadata(resource: string, origin: string): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [origin],
    bearer_methods_supported: ["header"],
    resource_name: "Airlock MCP endpoint",
    "x-airlock-authorization":
      "OAuth 2.1 with this host's authorization server (the operator consents in the console), or an agent token or an operator token as `Authorization: Bearer <token>`",
  };
}

export function mountProtectedResource(app: Hono, host: AirlockHost): void {
  mountPublicCors(app, [PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}/mcp/:slug`]);
  app.get(PROTECTED_RESOURCE_PATH, (c) => {
    const base = externalBase(host, c.req.url);
    return c.json(protectedResourceMetadata(base, base));
  });
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp/:slug`, (c) => {
    const base = externalBase(host, c.req.url);
    const resource = `${base}/mcp/${encodeURIComponent(c.req.param("slug"))}`;
    return c.json(protectedResourceMetadata(resource, base));
  });
}

const metadataOperation = (operationId: string, summary: string, parameters: unknown[] = []) => ({
  get: {
    operationId,
    summary,
    tags: ["mcp"],
    "x-airlock-access": "public",
    parameters,
    responses: {
      "200": { description: "RFC 9728 protected-resource metadata (JSON)." },
      "404": { description: "No route matches (the admin API's JSON error)." },
    },
  },
});

/** The OpenAPI description of the metadata documents (added to the admin API's document). */
export const PROTECTED_RESOURCE_OPENAPI_PATHS: ExtraPath[] = [
  {
    path: PROTECTED_RESOURCE_PATH,
    item: metadataOperation("mcpProtectedResource", "OAuth protected-resource metadata of this server."),
  },
  {
    path: `${PROTECTED_RESOURCE_PATH}/mcp/{slug}`,
    item: metadataOperation(
      "mcpAgentProtectedResource",
      "OAuth protected-resource metadata of one agent's MCP endpoint (named by its 401 challenge).",
      [{ name: "slug", in: "path", required: true, schema: { type: "string" } }],
    ),
  },
];
