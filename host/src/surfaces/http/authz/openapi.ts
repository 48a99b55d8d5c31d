// The OpenAPI description of the authorization server's endpoints (mounted by routes.ts with
// raw hono handlers, so they are described here and added to the admin API's document).
// Invariant: every path routes.ts mounts has its operation here, each with an operationId and
// its answers, like every operation of the document.
import type { ExtraPath } from "../openapi.ts";
import { AS_METADATA_PATH } from "./routes.ts";

const operation = (
  method: string,
  operationId: string,
  summary: string,
  responses: Record<string, string>,
) => ({
  [method]: {
    operationId,
    summary,
    tags: ["oauth-as"],
    "x-airlock-access": "public",
    responses: Object.fromEntries(
      Object.entries({ ...responses, "500": "An unexpected failure (the admin API's JSON error)." }).map(
        ([k, description]) => [k, { description }],
      ),
    ),
  },
});

/** The OpenAPI description of the authorization server's endpoints (added to the admin API's document). */
export const AUTHZ_OPENAPI_PATHS: ExtraPath[] = [
  {
    path: AS_METADATA_PATH,
    item: operation("get", "oauthServerMetadata", "RFC 8414 metadata of the host's authorization server.", {
      "200": "The metadata (JSON).",
    }),
  },
  {
    path: "/oauth/register",
    item: operation(
      "post",
      "oauthRegisterClient",
      "Dynamic client registration (RFC 7591), public clients.",
      {
        "201": "The registered client.",
        "400": "invalid_client_metadata (AIRLOCK_AUTHZ_INVALID_CLIENT_METADATA).",
        "429": "Too many registrations from this address (AIRLOCK_AUTHZ_REGISTRATION_RATE_LIMITED).",
        "503": "The host has its maximum of clients (AIRLOCK_AUTHZ_TOO_MANY_CLIENTS).",
      },
    ),
  },
  {
    path: "/oauth/authorize",
    item: {
      ...operation("get", "oauthAuthorize", "Authorization request: the consent page (sign-in first).", {
        "200": "The consent page (HTML).",
        "302": "To the console's sign-in and back, or to the redirect URI with an error.",
        "400": "A page naming the code (unknown client or redirect URI: no redirect).",
      }),
      ...operation("post", "oauthDecide", "The operator's decision on the consent page.", {
        "303": "To the redirect URI with code or error=access_denied, state and iss.",
        "403": "A page naming the code (AIRLOCK_AUTHZ_CONSENT_FORM_INVALID).",
      }),
    },
  },
  {
    path: "/oauth/token",
    item: operation(
      "post",
      "oauthToken",
      "Token endpoint: authorization_code with PKCE, refresh_token (rotating).",
      {
        "200": "Access and refresh tokens.",
        "400": "An OAuth error with airlock_code.",
      },
    ),
  },
  {
    path: "/oauth/revoke",
    item: operation("post", "oauthRevoke", "Token revocation (RFC 7009): revokes the token's grant.", {
      "200": "Revoked (or unknown: nothing to do).",
      "400": "invalid_request.",
    }),
  },
];
