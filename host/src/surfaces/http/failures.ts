// Reports every request that fails (an answer with status 4xx or 5xx) to the embedder, once, with
// its stable code: the admin API's `{error: {code, message}}`, the MCP endpoint's JSON-RPC
// `{error: {message, data: {code}}}`, or the thrown error behind a 500. `airlock start` prints
// each as one line (cli/request-log.ts).
// Invariants: the path is reported without its query (which may carry values an operator did not
// mean to log); a body is read (from a clone) only for a failure, and only a JSON one; a reporter
// that throws never changes the answer.
import type { MiddlewareHandler } from "hono";

export interface RequestFailure {
  method: string;
  /** The URL path, without the query. */
  path: string;
  status: number;
  /** The AIRLOCK_* code the answer carried (or null: an answer with no code, e.g. a plain 404). */
  code: string | null;
  message: string | null;
  /** What was thrown, when the answer came from the error handler (a 500's cause). */
  error?: unknown;
}

async function codeOf(res: Response): Promise<{ code: string | null; message: string | null }> {
  if (!(res.headers.get("content-type") ?? "").includes("json")) return { code: null, message: null };
  try {
    const body = (await res.clone().json()) as {
      error?: { code?: unknown; message?: unknown; data?: { code?: unknown } };
    };
    const code = body.error?.data?.code ?? body.error?.code;
    const message = body.error?.message;
    return {
      code: typeof code === "string" ? code : null,
      message: typeof message === "string" ? message : null,
    };
  } catch (error) {
    // Not JSON after all: report the status alone.
    void error;
    return { code: null, message: null };
  }
}

/** A middleware that calls `report` for every answer of status 400 or more. */
export function reportFailures(report: (failure: RequestFailure) => void): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const status = c.res.status;
    if (status < 400) return;
    const { code, message } = await codeOf(c.res);
    const failure: RequestFailure = {
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      status,
      code,
      message,
    };
    if (c.error !== undefined) failure.error = c.error;
    try {
      report(failure);
    } catch (error) {
      // The report is best effort: the answer is already made.
      void error;
    }
  };
}
