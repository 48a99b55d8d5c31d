// DNS-rebinding protection for every route of the admin server (admin API and MCP): a browser
// tricked into sending requests to 127.0.0.1 under a foreign name carries that name in Host,
// and a foreign page carries its own Origin. Both must be the server's own address.
// Invariants: comparison is exact on `host:port` (case-insensitive); a missing Origin is fine
// (non-browser clients), a missing Host is not.
import type { MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { apiError, toWireError } from "./errors.ts";

export function hostGuard(allowedHosts: () => readonly string[] | undefined): MiddlewareHandler {
  return async (c, next) => {
    const allowed = allowedHosts();
    if (allowed !== undefined) {
      const set = new Set(allowed.map((h) => h.toLowerCase()));
      const host = (c.req.header("host") ?? "").toLowerCase();
      const origin = c.req.header("origin");
      let refusal: string | undefined;
      if (!set.has(host)) refusal = "the Host header is not this server's address";
      else if (origin !== undefined && origin !== "null" && !originAllowed(origin, set)) {
        refusal = "the Origin header is not this server's address";
      } else if (origin === "null") refusal = "an opaque (null) Origin is not accepted";
      if (refusal !== undefined) {
        const wire = toWireError(apiError("AIRLOCK_API_HOST_NOT_ALLOWED", refusal));
        return c.json(wire.body, wire.status as ContentfulStatusCode);
      }
    }
    await next();
  };
}

function originAllowed(origin: string, allowed: ReadonlySet<string>): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && allowed.has(url.host.toLowerCase());
  } catch {
    return false;
  }
}
