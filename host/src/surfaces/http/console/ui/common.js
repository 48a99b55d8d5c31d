// Small pieces the screens share: loading a resource, a token shown once, empty states.
import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "./api.js";
import { html } from "./html.js";

/** Loads `path` (GET) and reloads on demand: `[data, error, reload]`. */
export function useResource(path) {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  const reload = useCallback(async () => {
    if (path === null) return;
    try {
      setData(await api("GET", path));
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, [path]);
  useEffect(() => {
    setData(null);
    reload();
  }, [reload]);
  return [data, error, reload];
}

export function LoadError({ error }) {
  return html`<p class="error" role="alert">Could not load: ${error.message} (${error.code})</p>`;
}

/** A fresh token, shown once: the host keeps only its hash. */
export function TokenOnce({ token, onDone }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      setCopied(true);
    } catch {
      document.getElementById("fresh-token")?.select();
    }
  };
  return html`<div class="card once" role="region" aria-label="New token">
    <p><strong>Copy this token now.</strong> It is shown once; the host keeps only a hash of it.</p>
    <label for="fresh-token">Token</label>
    <div class="row">
      <input id="fresh-token" readonly value=${token} onFocus=${(e) => e.currentTarget.select()} />
      <button type="button" onClick=${copy}>${copied ? "Copied" : "Copy"}</button>
    </div>
    <button type="button" class="link" onClick=${onDone}>I have stored it — hide it</button>
  </div>`;
}

export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
