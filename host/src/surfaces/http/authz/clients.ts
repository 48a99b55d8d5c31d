// Dynamic client registration (RFC 7591, public clients only) and the checks of an
// authorization request (RFC 6749 §4.1.1 with PKCE S256 and RFC 8707 `resource`).
// Invariants: a redirect URI is https, or http on a loopback host (127.0.0.1, [::1], localhost),
// never with a fragment; it is matched exactly, character for character; a request whose
// client or redirect URI is wrong is answered on this host's page, never by sending the browser
// to that URI (RFC 6749 §4.1.2.1); `resource` must be the MCP URL of an existing agent of this
// origin; every refusal is audited.
import type { AirlockHost } from "../../../contracts/host.ts";
import type { AuthClientRecord } from "../../../contracts/records.ts";
import { authzAudit } from "./config.ts";
import { type AuthzErrorCode, authzError } from "./errors.ts";
import { newId } from "./grants.ts";

const MAX_REDIRECT_URIS = 10;
const MAX_URI_CHARS = 2000;
const MAX_NAME_CHARS = 200;
const CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== "string" || uri.length === 0 || uri.length > MAX_URI_CHARS) return "not a URL string";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "not a URL";
  }
  if (url.hash !== "" || uri.includes("#")) return "has a fragment";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return null;
  return "is neither https nor loopback http";
}

async function refuseRegistration(host: AirlockHost, message: string): Promise<never> {
  await authzAudit(host, "register", "AIRLOCK_AUTHZ_INVALID_CLIENT_METADATA", null);
  throw authzError("AIRLOCK_AUTHZ_INVALID_CLIENT_METADATA", message);
}

/** Registers a public client from its RFC 7591 metadata; answers the registration response. */
export async function registerClient(host: AirlockHost, body: unknown): Promise<Record<string, unknown>> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return refuseRegistration(host, "the registration body is a JSON object of client metadata");
  }
  const meta = body as Record<string, unknown>;
  const uris = meta.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    return refuseRegistration(host, `redirect_uris is an array of 1 to ${MAX_REDIRECT_URIS} URLs`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) return refuseRegistration(host, `redirect URI ${JSON.stringify(uri)} ${problem}`);
  }
  const method = meta.token_endpoint_auth_method ?? "none";
  if (method !== "none") {
    return refuseRegistration(host, 'only public clients are registered: token_endpoint_auth_method "none"');
  }
  const grants = meta.grant_types ?? ["authorization_code", "refresh_token"];
  if (!Array.isArray(grants) || grants.some((g) => g !== "authorization_code" && g !== "refresh_token")) {
    return refuseRegistration(host, "grant_types may name authorization_code and refresh_token only");
  }
  const responses = meta.response_types ?? ["code"];
  if (!Array.isArray(responses) || responses.some((r) => r !== "code")) {
    return refuseRegistration(host, 'response_types may name "code" only');
  }
  const name = meta.client_name ?? "";
  if (typeof name !== "string" || name.length > MAX_NAME_CHARS) {
    return refuseRegistration(host, `client_name is a string of at most ${MAX_NAME_CHARS} characters`);
  }
  const client: AuthClientRecord = {
    id: newId("alc_"),
    name,
    redirectUris: uris as string[],
    createdAt: new Date().toISOString(),
  };
  await host.store.authServer.putClient(client);
  await authzAudit(host, "register", null, null, { clientId: client.id, clientName: client.name });
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
}

/** A checked authorization request. */
export interface AuthorizationRequest {
  client: AuthClientRecord;
  redirectUri: string;
  state: string | null;
  challenge: string;
  resource: string;
  agent: string;
}

export type AuthorizationCheck =
  | { ok: true; request: AuthorizationRequest }
  /** Answered on this host's page: the redirect URI cannot be trusted. */
  | { ok: false; redirect: false; code: AuthzErrorCode; message: string }
  /** Sent back to the client's redirect URI with `error`. */
  | {
      ok: false;
      redirect: true;
      redirectUri: string;
      state: string | null;
      code: AuthzErrorCode;
      message: string;
    };

/** The agent a resource names, when it is `<origin>/mcp/<agent>` of an existing agent; else null. */
export async function agentOfResource(
  host: AirlockHost,
  resource: string,
  origin: string,
): Promise<string | null> {
  const prefix = `${origin}/mcp/`;
  if (!resource.startsWith(prefix)) return null;
  const rest = resource.slice(prefix.length);
  if (rest === "" || rest.includes("/") || rest.includes("?") || rest.includes("#")) return null;
  let slug: string;
  try {
    slug = decodeURIComponent(rest);
  } catch {
    return null;
  }
  if (`${prefix}${encodeURIComponent(slug)}` !== resource) return null;
  return (await host.getAgent(slug)) === null ? null : slug;
}

export async function checkAuthorizationRequest(
  host: AirlockHost,
  params: Readonly<Record<string, string | undefined>>,
  origin: string,
): Promise<AuthorizationCheck> {
  const client =
    params.client_id === undefined ? null : await host.store.authServer.getClient(params.client_id);
  if (client === null) {
    return { ok: false, redirect: false, code: "AIRLOCK_AUTHZ_UNKNOWN_CLIENT", message: "unknown client_id" };
  }
  const redirectUri = params.redirect_uri ?? "";
  if (!client.redirectUris.includes(redirectUri)) {
    const message = `redirect_uri ${JSON.stringify(redirectUri)} is not one this client registered`;
    return { ok: false, redirect: false, code: "AIRLOCK_AUTHZ_REDIRECT_URI_MISMATCH", message };
  }
  const state = params.state ?? null;
  const back = (code: AuthzErrorCode, message: string): AuthorizationCheck => ({
    ok: false,
    redirect: true,
    redirectUri,
    state,
    code,
    message,
  });
  if (params.response_type !== "code")
    return back("AIRLOCK_AUTHZ_INVALID_REQUEST", "response_type must be code");
  if (params.code_challenge_method !== "S256" || !CHALLENGE.test(params.code_challenge ?? "")) {
    return back(
      "AIRLOCK_AUTHZ_INVALID_REQUEST",
      "PKCE is required: code_challenge_method S256 and a code_challenge",
    );
  }
  const resource = params.resource ?? "";
  const agent = await agentOfResource(host, resource, origin);
  if (agent === null) {
    return back(
      "AIRLOCK_AUTHZ_INVALID_RESOURCE",
      `resource must be an agent's MCP URL, ${origin}/mcp/<agent>`,
    );
  }
  return {
    ok: true,
    request: { client, redirectUri, state, challenge: params.code_challenge ?? "", resource, agent },
  };
}
