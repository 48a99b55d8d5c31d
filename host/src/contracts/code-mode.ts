// Code mode as the host's API exposes it (docs/code-mode.md): an agent's settings (on or off,
// listing, scratch store, snippets, the limits every run_code call runs under), a change to
// them, and host.snippets, what an operator does with the snippets run_code saved (list, read,
// save, promote into a skill, delete). engine/code-mode/ implements them.
// Invariants: a change is validated whole before anything is written
// (AIRLOCK_CODE_SETTINGS_INVALID); a snippet listing never carries code; a promoted snippet is
// the skill `airlock:skill:snippet-<name>`.

export interface CodeModeLimits {
  /** CPU time of the code itself (inner calls run in their own plugins' isolates). */
  cpuMs: number;
  /** Wall time of one run_code call, inner calls and approval waits included. */
  wallMs: number;
  /** Heap of the agent's code-mode isolate. */
  memoryMb: number;
  /** Tool calls one run may make. */
  maxInnerCalls: number;
  /** Bytes (UTF-8 JSON) all inner results of one run may hand back to the code. */
  maxInnerBytes: number;
  /** console output kept per run; past it the log is cut (logTruncated). */
  maxLogBytes: number;
  /** Size of the code sent to run_code. */
  maxCodeBytes: number;
  /** Size of what run_code answers (the returned value and the log). */
  maxResultBytes: number;
  /** Scratch store (when `scratch` is on): seconds a value lives after its last set. */
  scratchTtlSeconds: number;
  /** Scratch store: keys one conversation may hold. */
  scratchMaxKeys: number;
  /** Scratch store: UTF-8 JSON bytes of one value. */
  scratchMaxValueBytes: number;
  /** Scratch store: bytes all values of one conversation may hold together. */
  scratchMaxBytes: number;
  /** Scratch store: get/set/delete/keys calls one run_code call may make. */
  scratchMaxOps: number;
}

export interface CodeModeSettings {
  enabled: boolean;
  /** List only search_tools and run_code to the model (the agent's tools stay callable). */
  exclusive: boolean;
  /** run_code's code gets the `scratch` global: a small key/value store per agent and conversation. */
  scratch: boolean;
  /** run_code may save its code as a named snippet (`saveAs`), which an operator may promote into a skill. */
  snippets: boolean;
  limits: CodeModeLimits;
}

export interface CodeModeChange {
  enabled?: boolean;
  exclusive?: boolean;
  scratch?: boolean;
  snippets?: boolean;
  limits?: Partial<CodeModeLimits>;
}

export interface Snippet {
  name: string;
  description: string;
  code: string;
  /** Who saved it last: the model through run_code, or an operator. */
  savedBy: "run_code" | "operator";
  /** The run_code call that saved it (its audit entry), or null. */
  callId: string | null;
  savedAt: string;
  promoted: boolean;
}

export type SnippetSummary = Omit<Snippet, "code">;

export interface HostSnippets {
  list(agent: string): Promise<SnippetSummary[]>;
  /** The snippet with its code; AIRLOCK_CODE_SNIPPET_UNKNOWN when there is none. */
  get(agent: string, name: string): Promise<Snippet>;
  /** Saves (or replaces) a snippet as the operator; a promoted one stays promoted. */
  save(agent: string, name: string, snippet: { code: string; description?: string }): Promise<Snippet>;
  /** Promotes the snippet into the skill `airlock:skill:snippet-<name>` (false: withdraws it). */
  promote(agent: string, name: string, promoted?: boolean): Promise<Snippet>;
  delete(agent: string, name: string): Promise<boolean>;
}
