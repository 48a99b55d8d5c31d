// What `airlock start` / `airlock serve` print on their terminal while serving: one line per
// request that failed (4xx and 5xx alike) with its status, AIRLOCK_* code, method, path and
// message; `--log-format json` prints the same as one JSON object a line, for machines.
// Stacks only with `--verbose`. An unexpected failure reported without a request (a metrics
// probe, /readyz's store check) gets its own line.
// Invariants: one line per failure (the error behind a 5xx is folded into that request's line,
// not printed twice); no stack unless verbose; the query string is never printed.
import { inspect } from "node:util";
import type { RequestFailure } from "../http/failures.ts";
import type { CliIO } from "./types.ts";

export const LOG_FORMATS = ["text", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface RequestLog {
  /** AdminApiOptions.onFailure */
  onFailure(failure: RequestFailure): void;
  /** AdminApiOptions.log: unexpected errors (a 500's cause, a failed probe). */
  log(error: unknown): void;
}

function causeOf(error: unknown): string {
  const first = (text: string) => (text.split("\n")[0] ?? "").slice(0, 300);
  if (error instanceof Error) return first(`${error.name}: ${error.message}`);
  return first(String(error));
}

export function createRequestLog(io: CliIO, format: LogFormat, verbose: boolean): RequestLog {
  const pending = new WeakSet<object>();
  const write = (fields: Record<string, unknown>, text: string) => {
    if (format === "json") io.stderr(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
    else io.stderr(`airlock: ${text}\n`);
  };
  const internal = (error: unknown) => {
    const stack = verbose ? inspect(error) : undefined;
    write(
      { level: "error", event: "internal", cause: causeOf(error), ...(stack ? { stack } : {}) },
      `internal error: ${causeOf(error)}${stack ? `\n${stack}` : " (--verbose prints the stack)"}`,
    );
  };
  return {
    onFailure(failure) {
      const folded =
        typeof failure.error === "object" && failure.error !== null && pending.has(failure.error);
      if (folded) pending.delete(failure.error as object);
      const cause = folded && failure.code === "AIRLOCK_API_INTERNAL" ? causeOf(failure.error) : undefined;
      const stack = folded && verbose ? inspect(failure.error) : undefined;
      const { method, path, status, code, message } = failure;
      const said = [message, cause === undefined ? undefined : `cause: ${cause}`].filter(Boolean).join("; ");
      write(
        {
          level: status >= 500 ? "error" : "warn",
          event: "request.failed",
          status,
          code,
          method,
          path,
          message,
          ...(cause === undefined ? {} : { cause }),
          ...(stack === undefined ? {} : { stack }),
        },
        `${status} ${code ?? "-"} ${method} ${path}${said === "" ? "" : ` — ${said}`}${stack ? `\n${stack}` : ""}`,
      );
    },
    log(error) {
      if (typeof error !== "object" || error === null) return internal(error);
      // A request's failure follows in this same turn and prints it on its line; otherwise print alone.
      pending.add(error);
      setImmediate(() => {
        if (!pending.has(error)) return;
        pending.delete(error);
        internal(error);
      });
    },
  };
}
