// One request to a running host's admin API, as the CLI's admin client makes it, and the paths
// of the resources it names.
// Contract: `adminCall(url, token)` answers a function that sends one request with the operator
// token (Bearer) and a JSON body when given, and answers the parsed JSON body (`{}` when empty).
// Invariants: an API error `{error: {code, message, details?}}` is rethrown as an AirlockError
// with the same code, status and details; any other non-2xx answer, and a host that does not
// answer at all, is AIRLOCK_CLI_HOST_UNREACHABLE; path segments are always URI-encoded.
import { AirlockError } from "@airlock/sdk/errors";
import { cliError } from "./errors.ts";

/** One admin API request: method, path below the admin URL, optional JSON body. */
export type AdminCall = <T>(method: string, path: string, body?: unknown) => Promise<T>;

export const agentPath = (slug: string) => `/api/agents/${encodeURIComponent(slug)}`;
export const pluginPath = (ns: string) => `/api/plugins/${encodeURIComponent(ns)}`;
export const remotePath = (ns: string) => `/api/remote/${encodeURIComponent(ns)}`;

export function adminCall(adminUrl: string, token: string): AdminCall {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(`${adminUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (cause) {
      throw new AirlockError(
        "AIRLOCK_CLI_HOST_UNREACHABLE",
        `the host at ${adminUrl} did not answer (${(cause as Error).message}); is it still running?`,
        { status: 503, cause },
      );
    }
    const text = await response.text();
    const json = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
    if (!response.ok) {
      const error = json.error as { code?: string; message?: string; details?: unknown } | undefined;
      if (typeof error?.code === "string") {
        throw new AirlockError(error.code, error.message ?? error.code, {
          status: response.status,
          ...(error.details === undefined ? {} : { details: error.details as Record<string, unknown> }),
        });
      }
      throw cliError(
        "AIRLOCK_CLI_HOST_UNREACHABLE",
        `the host at ${adminUrl} answered HTTP ${response.status}`,
      );
    }
    return json as T;
  };
}
