// How a request changes when it follows a redirect (the WHATWG fetch rules, applied by hand
// because the gate must re-check every hop before it connects).
// Invariants: 303 turns anything but HEAD into a body-less GET; 301/302 turn POST into a
// body-less GET; 307/308 keep method and body. When the body is dropped its content headers
// go with it. On a cross-origin hop the plugin's own Authorization and Cookie headers are
// dropped (secret headers are re-checked against the new host by the caller, not dropped).

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

const BODY_HEADERS = ["content-type", "content-encoding", "content-language", "content-location"];
const CREDENTIAL_HEADERS = ["authorization", "cookie"];

export interface RedirectedRequest {
  method: string;
  body: Uint8Array | null;
  headers: Map<string, string>;
}

export function followRedirect(
  status: number,
  from: URL,
  to: URL,
  current: RedirectedRequest,
): RedirectedRequest {
  let { method, body } = current;
  if ((status === 303 && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
    method = "GET";
    body = null;
  }
  const headers = new Map(current.headers);
  if (body === null && current.body !== null) for (const h of BODY_HEADERS) headers.delete(h);
  if (from.origin !== to.origin) for (const h of CREDENTIAL_HEADERS) headers.delete(h);
  return { method, body, headers };
}

/** The Location of a redirect response, or null when the response is not a redirect to follow. */
export function redirectLocation(status: number, headers: Record<string, unknown>): string | null {
  if (!REDIRECT_STATUSES.has(status)) return null;
  const location = headers.location;
  const value = Array.isArray(location) ? location[0] : location;
  return typeof value === "string" && value !== "" ? value : null;
}
