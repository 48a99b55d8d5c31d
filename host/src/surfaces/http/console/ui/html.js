// htm bound to Preact's h: tagged templates instead of JSX, so the console needs no JSX step.
// Values are rendered as text by Preact; nothing here ever sets innerHTML.
import htm from "htm";
import { h } from "preact";

export const html = htm.bind(h);
