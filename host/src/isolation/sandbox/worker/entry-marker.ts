// Which plugin a worker process last entered, kept where it survives the process: a V8 abort
// (an allocation pattern the isolate's memoryLimit does not catch ends the whole process with
// SIGABRT) leaves no time to say anything, so the worker records the plugin key in a small
// file *before* entering a different plugin's code, and the host reads it after the crash to
// attribute the abort (worker-slot.ts; the quarantine in worker-loads.ts).
// Contract: the worker writes only when the plugin changes (one pwrite of a short line; runs of
// calls to one plugin cost nothing); `readMarker` returns the last key written, or null (no
// file, empty, unreadable). The file holds plugin keys only: no input, no result, no secret.
// Limitation: bundle runs that isolated-vm schedules on its own threads (a context's first run)
// may overlap another plugin's entry; the host cross-checks the key against what it had in
// flight on that worker (worker-slot.ts).
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";

/** Worker side: records `pluginKey` as the one being entered (no-op when unchanged). */
export function createEntryMarker(path: string | undefined): (pluginKey: string) => void {
  if (path === undefined || path === "") return () => undefined;
  const fd = openSync(path, "w", 0o600);
  let current = "";
  process.once("exit", () => closeSync(fd));
  return (pluginKey) => {
    if (pluginKey === current) return;
    current = pluginKey;
    writeSync(fd, `${pluginKey}\n`, 0, "utf8");
  };
}

/** Host side: the key the worker last recorded, or null. */
export function readMarker(path: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null; // never written (the worker died before its first entry)
  }
  const line = text.slice(0, text.indexOf("\n"));
  return line === "" ? null : line;
}
