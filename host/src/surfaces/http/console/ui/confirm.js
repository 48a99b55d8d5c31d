// A confirmation step as a modal <dialog>: focus moves into it, Escape cancels, and what the
// action will do is shown before the operator confirms.
import { useEffect, useRef } from "preact/hooks";
import { html } from "./html.js";

export function Confirm({ title, children, confirmLabel, danger, onConfirm, onCancel, busy }) {
  const ref = useRef(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog !== null && !dialog.open) dialog.showModal();
    return () => dialog?.open && dialog.close();
  }, []);
  return html`<dialog ref=${ref} class="confirm" aria-labelledby="confirm-title" onCancel=${(e) => {
    e.preventDefault();
    onCancel();
  }}>
    <h2 id="confirm-title">${title}</h2>
    <div class="confirm-body">${children}</div>
    <div class="actions">
      <button type="button" onClick=${onCancel}>Cancel</button>
      <button type="button" class=${danger ? "danger" : "primary"} disabled=${busy} onClick=${onConfirm}>${confirmLabel}</button>
    </div>
  </dialog>`;
}
