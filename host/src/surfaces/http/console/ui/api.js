// The console's one way to reach the host: fetch with the session cookie (sent by the browser,
// never readable here) and the CSRF token on every request that changes something. A failure is
// thrown as ApiError with the host's stable code and message; a 401 ends the session in the UI.
let csrf = null;
let onSignedOut = () => undefined;

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function setSession(token, signedOut) {
  csrf = token;
  if (signedOut !== undefined) onSignedOut = signedOut;
}

async function errorOf(res) {
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null; // not JSON (a proxy's page): report the status alone
  }
  const code = body?.error?.code ?? `HTTP_${res.status}`;
  const message = body?.error?.message ?? res.statusText;
  return new ApiError(res.status, code, message);
}

/** One JSON request; `body` is sent as JSON, or as-is when it is a Blob/ArrayBuffer. */
export async function api(method, path, body) {
  const headers = { accept: "application/json" };
  if (method !== "GET" && csrf !== null) headers["x-airlock-csrf"] = csrf;
  let payload;
  if (body instanceof Blob || body instanceof ArrayBuffer) {
    headers["content-type"] = "application/octet-stream";
    payload = body;
  } else if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers, body: payload, credentials: "same-origin" });
  if (!res.ok) {
    const error = await errorOf(res);
    if (res.status === 401 && !path.startsWith("/admin/session")) onSignedOut(error);
    throw error;
  }
  return res.json();
}

/** An upload with progress (fetch has no upload progress): XMLHttpRequest, same headers. */
export function upload(path, file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", path);
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.setRequestHeader("accept", "application/json");
    if (csrf !== null) xhr.setRequestHeader("x-airlock-csrf", csrf);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else
        reject(
          new ApiError(
            xhr.status,
            body?.error?.code ?? `HTTP_${xhr.status}`,
            body?.error?.message ?? "upload failed",
          ),
        );
    };
    xhr.onerror = () => reject(new ApiError(0, "NETWORK", "the host did not answer"));
    xhr.send(file);
  });
}
