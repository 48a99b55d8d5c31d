// What an operator's install options for a remote MCP server must be, checked before anything is
// contacted or written: the URL (`mcp+https://…`, or `mcp+http://` toward an allowed private
// address), the namespace, a static header (a name Airlock may set, a snake_case secret key), an
// OAuth provider (the SDK's provider rules, the server's host as its API host), and for
// `mcp+stdio:<command>` the operator's --allow-command naming that exact command.
// Invariants: every refusal is an AirlockError with AIRLOCK_REMOTE_SPEC_INVALID, or
// AIRLOCK_REMOTE_COMMAND_NOT_ALLOWED for a command the operator did not allow.
import { namespaceRefusal, oauthProviderProblems, SECRET_KEY_PATTERN } from "@airlock/sdk";
import { remoteError } from "./errors.ts";
import type { RemoteInstallOptions } from "./types.ts";

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** Headers the transport sets itself, or that would change where or how a request goes. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "accept",
  "connection",
  "transfer-encoding",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

/** `mcp+https://…` (or `https://…`) → the endpoint URL; AIRLOCK_REMOTE_SPEC_INVALID otherwise. */
export function parseRemoteUrl(spec: string): string {
  const raw = typeof spec === "string" ? spec.trim() : "";
  const text = raw.startsWith("mcp+") ? raw.slice(4) : raw;
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    throw remoteError(
      "AIRLOCK_REMOTE_SPEC_INVALID",
      `"${raw.slice(0, 200)}" is not a URL (mcp+https://host/path)`,
      {},
      error,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw remoteError(
      "AIRLOCK_REMOTE_SPEC_INVALID",
      `a remote MCP server is reached over https (or http to an allowed private address), not ${url.protocol.slice(0, -1)}`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw remoteError(
      "AIRLOCK_REMOTE_SPEC_INVALID",
      "credentials in the URL are not accepted; use --header with a secret",
    );
  }
  url.hash = "";
  return url.toString();
}

/** `mcp+stdio:<command>` → the command; undefined for any other spec. */
export function stdioCommandOf(spec: string): string | undefined {
  const raw = typeof spec === "string" ? spec.trim() : "";
  return raw.startsWith("mcp+stdio:") ? raw.slice("mcp+stdio:".length) : undefined;
}

/** The checks of a stdio install: the operator allowed exactly this command, and nothing HTTP-only is set. */
export function checkStdio(
  command: string,
  options: RemoteInstallOptions,
): { command: string; args: string[] } {
  if (command === "" || command.length > 1000 || /[\0\n]/.test(command)) {
    throw remoteError("AIRLOCK_REMOTE_SPEC_INVALID", "mcp+stdio: needs a command (mcp+stdio:<command>)");
  }
  if (options.allowCommand !== command) {
    throw remoteError(
      "AIRLOCK_REMOTE_COMMAND_NOT_ALLOWED",
      `the host starts the command ${JSON.stringify(command.slice(0, 200))} only when the operator allows it: --allow-command ${JSON.stringify(command.slice(0, 200))}`,
      { command: command.slice(0, 200) },
    );
  }
  if (
    options.header !== undefined ||
    options.oauth !== undefined ||
    (options.allowPrivate ?? []).length > 0
  ) {
    throw remoteError(
      "AIRLOCK_REMOTE_SPEC_INVALID",
      "--header, OAuth and --allow-private are for servers reached over HTTP, not mcp+stdio:",
    );
  }
  const args = options.args ?? [];
  if (
    !Array.isArray(args) ||
    args.length > 64 ||
    !args.every((a) => typeof a === "string" && a.length <= 4096 && !a.includes("\0"))
  ) {
    throw remoteError(
      "AIRLOCK_REMOTE_SPEC_INVALID",
      "--arg takes at most 64 arguments of at most 4096 characters",
    );
  }
  return { command, args: [...args] };
}

export function checkOptions(options: RemoteInstallOptions, url: string): void {
  const refusal = typeof options?.namespace === "string" ? namespaceRefusal(options.namespace) : "is missing";
  if (refusal !== null) {
    throw remoteError(
      "AIRLOCK_REMOTE_SPEC_INVALID",
      `--namespace ${JSON.stringify(options?.namespace ?? "")} ${refusal}`,
    );
  }
  if (options.header !== undefined) {
    const { name, secret } = options.header;
    if (typeof name !== "string" || !HEADER_NAME.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) {
      throw remoteError(
        "AIRLOCK_REMOTE_SPEC_INVALID",
        `header name ${JSON.stringify(name)} is not a header Airlock may set`,
      );
    }
    if (typeof secret !== "string" || !SECRET_KEY_PATTERN.test(secret)) {
      throw remoteError(
        "AIRLOCK_REMOTE_SPEC_INVALID",
        `header secret ${JSON.stringify(secret)} is not a snake_case secret key`,
      );
    }
  }
  if (options.oauth !== undefined) {
    if (options.header !== undefined) {
      throw remoteError(
        "AIRLOCK_REMOTE_SPEC_INVALID",
        "choose --header or OAuth (--oauth-provider …) for a remote server, not both",
      );
    }
    const o = options.oauth;
    const spec = {
      name: o?.provider,
      authorizationUrl: o?.authorizationUrl,
      tokenUrl: o?.tokenUrl,
      ...(o?.revocationUrl === undefined ? {} : { revocationUrl: o.revocationUrl }),
      scopes: o?.scopes ?? [],
      apiHosts: [new URL(url).hostname.replace(/^\[|\]$/g, "")],
    };
    const problems = oauthProviderProblems(spec, false);
    if (problems.length > 0) {
      throw remoteError(
        "AIRLOCK_REMOTE_SPEC_INVALID",
        `OAuth provider: ${problems.map(([field, problem]) => `${field} ${problem}`).join("; ")}`,
      );
    }
  }
  if (new URL(url).protocol === "http:" && (options.allowPrivate ?? []).length === 0) {
    throw remoteError(
      "AIRLOCK_REMOTE_SPEC_INVALID",
      "plain http is accepted only toward a private address the operator allows (--allow-private); use https",
    );
  }
}
