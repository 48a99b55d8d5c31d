// One place for the result of the last action: a status line (role=status, announced by screen
// readers) that every action writes through `run`. A new action or a change of screen clears
// it, so an old error never stays on screen after a later success. The line sits in the page's
// flow under the header (it takes its own space and never covers content); an error or a warning
// that arrives while it is scrolled out of view brings it back into view.
import { createContext } from "preact";
import { useCallback, useContext, useLayoutEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.js";

const FeedbackContext = createContext(null);

export function useFeedbackState() {
  const [state, setState] = useState(null);
  const clear = useCallback(() => setState(null), []);
  const run = useCallback(async (label, action) => {
    setState({ kind: "busy", text: `${label}…` });
    try {
      const message = await action();
      // An action may answer {warn: text}: it worked, but something still needs the operator.
      if (typeof message === "object" && message !== null && typeof message.warn === "string")
        setState({ kind: "warn", text: message.warn });
      else setState({ kind: "ok", text: typeof message === "string" ? message : `${label}: done.` });
      return true;
    } catch (error) {
      const code = error?.code ? ` (${error.code})` : "";
      setState({ kind: "error", text: `${label} failed: ${error?.message ?? String(error)}${code}` });
      return false;
    }
  }, []);
  return { state, clear, run };
}

export const FeedbackProvider = FeedbackContext.Provider;

/** `{run, clear}`: run(label, async () => "what happened") reports into the status line. */
export function useFeedback() {
  return useContext(FeedbackContext);
}

export function StatusLine({ state, onDismiss }) {
  const ref = useRef(null);
  // A layout effect: the line is scrolled to in the same task that renders it, before a paint,
  // so no one sees (or reads) the new message out of view first.
  useLayoutEffect(() => {
    const line = ref.current;
    if (line === null || (state?.kind !== "error" && state?.kind !== "warn")) return;
    if (line.getBoundingClientRect().top < 0) line.scrollIntoView({ block: "start" });
  }, [state]);
  return html`<div ref=${ref} class="status ${state?.kind ?? "idle"}" role="status" aria-live="polite" id="status">
    ${
      state === null
        ? html`<span class="muted">Ready.</span>`
        : html`<span>${state.text}</span>
          ${state.kind !== "busy" && html`<button type="button" class="link" onClick=${onDismiss} aria-label="Dismiss message">×</button>`}`
    }
  </div>`;
}
