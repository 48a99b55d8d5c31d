// The Web runtime's committed bundles (build.ts), read once per process as one-byte strings.
// Why one-byte: isolated-vm copies a compiled script's source into the isolate (an external
// string it keeps for as long as the script lives), one byte per character for a one-byte
// string, two for any other; V8 tells them apart by how the string is stored, not by what it
// holds, so a string read as UTF-8 with one character past U+00FF anywhere is two-byte throughout.
import { readFileSync } from "node:fs";

/**
 * `text` stored one byte per character (V8 keeps a Latin-1 decode that way). Throws when `text`
 * has a character past U+00FF: a script the sandbox compiles in every isolate must have none.
 */
export function oneByte(text: string, what: string): string {
  const at = text.search(/[\u0100-\uffff]/);
  if (at !== -1) throw new Error(`${what} has a character past U+00FF at ${at}: ${JSON.stringify(text[at])}`);
  return Buffer.from(text, "latin1").toString("latin1");
}

function bundle(name: string): string {
  return oneByte(readFileSync(new URL(`./${name}`, import.meta.url), "utf8"), name);
}

/** Defines globalThis.__airlockWebRuntime (isolate/index.js); compiled in every isolate. */
export const WEB_RUNTIME_SOURCE: string = bundle("web-runtime.bundle.js");

/** URL's code: a function expression returning {URL, URLSearchParams} (isolate/url.js). */
export const WEB_URL_SOURCE: string = bundle("web-url.bundle.js");
