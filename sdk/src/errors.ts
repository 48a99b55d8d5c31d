// The one error shape every Airlock component throws and every wire carries.
// Invariants: an error is recognised by `code` (never by message text or `instanceof`
// across realms); codes are `AIRLOCK_*`, each defined once in a catalogue with its HTTP
// status and a one-line description; a code is never reused for a different failure.

/** One entry of an error catalogue. */
export interface ErrorSpec {
  /** HTTP status used when the error crosses the admin API or the registry API. */
  status: number;
  /** One line for the docs: what went wrong and what the caller can do about it. */
  description: string;
}

export type ErrorCatalogue = Readonly<Record<`AIRLOCK_${string}`, ErrorSpec>>;

/** Declares a catalogue; the identity function exists so each entry is type-checked. */
export function defineErrorCodes<const T extends ErrorCatalogue>(codes: T): T {
  return codes;
}

export interface AirlockErrorOptions {
  /** HTTP status; defaults to 400. */
  status?: number;
  /** Structured, non-secret details a caller may act on (a JSON path, a limit, a field name). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** An error with a stable code. Safe to show to operators, authors and models: never put secrets in it. */
export class AirlockError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, options: AirlockErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AirlockError";
    this.code = code;
    this.status = options.status ?? 400;
    this.details = options.details;
  }

  /** The wire form: what crosses HTTP, MCP and the worker boundary. No stack, no cause. */
  toJSON(): { code: string; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** The error-making function of one catalogue: status taken from the catalogue entry. */
export type ErrorFactory<T extends ErrorCatalogue> = (
  code: keyof T & string,
  message: string,
  details?: Record<string, unknown>,
  cause?: unknown,
) => AirlockError;

/** Builds `xError(code, message, details?, cause?)` for a catalogue, so each area throws its own codes. */
export function errorFactory<const T extends ErrorCatalogue>(catalogue: T): ErrorFactory<T> {
  return (code, message, details, cause) => {
    const options: AirlockErrorOptions = { status: (catalogue[code] as ErrorSpec).status };
    if (details !== undefined) options.details = details;
    if (cause !== undefined) options.cause = cause;
    return new AirlockError(code, message, options);
  };
}

/** True when `value` carries a string `code` (an AirlockError from any realm, or a Node system error). */
export function hasCode(value: unknown, code?: string): value is { code: string; message: string } {
  if (typeof value !== "object" || value === null) return false;
  const c = (value as { code?: unknown }).code;
  return typeof c === "string" && (code === undefined || c === code);
}
