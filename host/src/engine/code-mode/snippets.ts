// Saved snippets of code mode: named run_code code kept per agent, when the operator turned
// `snippets` on. The model saves one by calling run_code with `saveAs` (kept only when the run
// succeeds); an operator saves, lists, reads, promotes and deletes them (host.snippets, the admin
// API, `airlock agents snippets`). A promoted snippet is a skill of that agent only,
// `airlock:skill:snippet-<name>`, listed and read like the skills plugins ship (skills/).
// Storage: the store's conversation state, agent, conversation "airlock:code-snippets",
// namespace "airlock" (reserved: no plugin's ctx.state reaches it), key = the name.
// Invariants: a name is ^[a-z][a-z0-9-]{0,47}$; at most MAX_SNIPPETS per agent; the code is at
// most the agent's maxCodeBytes; a promoted snippet is never overwritten by run_code (the
// operator reviewed that text) — AIRLOCK_CODE_SNIPPET_PROMOTED; a refused save stores nothing.
import type { Snippet, SnippetSummary } from "../../contracts/code-mode.ts";
import type { Store } from "../../state/store/types.ts";
import { codeModeError } from "./errors.ts";

export type { Snippet, SnippetSummary };

const CONVERSATION = "airlock:code-snippets";
const NAMESPACE = "airlock";
const NAME = /^[a-z][a-z0-9-]{0,47}$/;
export const MAX_SNIPPETS = 50;
const MAX_DESCRIPTION = 500;
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;
export const SNIPPET_SKILL_PREFIX = "airlock:skill:snippet-";

function checkName(name: unknown): string {
  if (typeof name === "string" && NAME.test(name)) return name;
  throw codeModeError(
    "AIRLOCK_CODE_SNIPPET_INVALID",
    "a snippet name is 1–48 characters: a lowercase letter, then lowercase letters, digits and -",
  );
}

function parse(json: string | null): Snippet | null {
  if (json === null) return null;
  try {
    const s = JSON.parse(json) as Snippet;
    return typeof s.name === "string" && typeof s.code === "string" ? s : null;
  } catch {
    return null; // a row this version cannot read: as if absent
  }
}

export async function getSnippet(store: Store, agent: string, name: string): Promise<Snippet | null> {
  return parse(await store.getState(agent, CONVERSATION, NAMESPACE, checkName(name)));
}

export async function listSnippets(store: Store, agent: string): Promise<SnippetSummary[]> {
  const out: SnippetSummary[] = [];
  for (const key of await store.listStateKeys(agent, CONVERSATION, NAMESPACE)) {
    const s = parse(await store.getState(agent, CONVERSATION, NAMESPACE, key));
    if (s === null) continue;
    const { code: _code, ...summary } = s;
    out.push(summary);
  }
  return out;
}

export interface SaveRequest {
  name: unknown;
  description?: unknown;
  code: unknown;
  savedBy: Snippet["savedBy"];
  callId: string | null;
  maxCodeBytes: number;
}

/** A snippet's name and description as given, checked (AIRLOCK_CODE_SNIPPET_INVALID). */
export function checkSnippetMeta(
  rawName: unknown,
  rawDescription: unknown,
): { name: string; description: string } {
  const name = checkName(rawName);
  const description = rawDescription ?? "";
  if (typeof description !== "string" || description.length > MAX_DESCRIPTION) {
    throw codeModeError(
      "AIRLOCK_CODE_SNIPPET_INVALID",
      `a snippet description is a string of at most ${MAX_DESCRIPTION} characters`,
    );
  }
  return { name, description };
}

/** Saves (or replaces) a snippet; the model may not replace a promoted one. */
export async function saveSnippet(store: Store, agent: string, req: SaveRequest): Promise<Snippet> {
  const { name, description } = checkSnippetMeta(req.name, req.description);
  if (typeof req.code !== "string" || req.code.trim() === "") {
    throw codeModeError("AIRLOCK_CODE_SNIPPET_INVALID", "a snippet's code is a non-empty string");
  }
  if (Buffer.byteLength(req.code, "utf8") > req.maxCodeBytes) {
    throw codeModeError(
      "AIRLOCK_CODE_SNIPPET_INVALID",
      `a snippet's code is at most maxCodeBytes = ${req.maxCodeBytes}`,
    );
  }
  const existing = await getSnippet(store, agent, name);
  if (existing?.promoted === true && req.savedBy === "run_code") {
    throw codeModeError(
      "AIRLOCK_CODE_SNIPPET_PROMOTED",
      `snippet ${name} was promoted into a skill by an operator; save under another name`,
    );
  }
  if (existing === null && (await listSnippets(store, agent)).length >= MAX_SNIPPETS) {
    throw codeModeError(
      "AIRLOCK_CODE_SNIPPET_LIMIT",
      `an agent keeps at most ${MAX_SNIPPETS} snippets; an operator deletes some`,
    );
  }
  const snippet: Snippet = {
    name,
    description,
    code: req.code,
    savedBy: req.savedBy,
    callId: req.callId,
    savedAt: new Date().toISOString(),
    // an operator's save keeps a promotion; the model cannot reach here for a promoted one
    promoted: existing?.promoted === true,
  };
  const ok = await store.setState(
    agent,
    CONVERSATION,
    NAMESPACE,
    name,
    JSON.stringify(snippet),
    MAX_TOTAL_BYTES,
  );
  if (!ok) throw codeModeError("AIRLOCK_CODE_SNIPPET_LIMIT", "the agent's snippets are over 8 MiB in all");
  return snippet;
}

/** Promotes (or, `promoted` false, withdraws) a snippet as a skill of the agent. */
export async function promoteSnippet(
  store: Store,
  agent: string,
  name: string,
  promoted: boolean,
): Promise<Snippet> {
  const existing = await getSnippet(store, agent, name);
  if (existing === null)
    throw codeModeError("AIRLOCK_CODE_SNIPPET_UNKNOWN", `agent ${agent} has no snippet ${name}`);
  const next = { ...existing, promoted };
  await store.setState(agent, CONVERSATION, NAMESPACE, existing.name, JSON.stringify(next), MAX_TOTAL_BYTES);
  return next;
}

export async function deleteSnippet(store: Store, agent: string, name: string): Promise<boolean> {
  const key = checkName(name);
  if ((await getSnippet(store, agent, key)) === null) return false;
  await store.deleteState(agent, CONVERSATION, NAMESPACE, key);
  return true;
}

/** The skill a promoted snippet is: one line, and its body (markdown with the code). */
export function snippetSkill(s: Snippet): { id: string; name: string; description: string; body: string } {
  const description = s.description === "" ? `Saved run_code snippet ${s.name}.` : s.description;
  return {
    id: `${SNIPPET_SKILL_PREFIX}${s.name}`,
    name: `snippet-${s.name}`,
    description,
    body: `${description}\n\nRun it with run_code (adapt the inputs first if needed):\n\n\`\`\`ts\n${s.code}\n\`\`\`\n`,
  };
}

/** The promoted snippets of an agent, as skills. */
export async function snippetSkills(
  store: Store,
  agent: string,
): Promise<Array<ReturnType<typeof snippetSkill>>> {
  const out: Array<ReturnType<typeof snippetSkill>> = [];
  for (const summary of await listSnippets(store, agent)) {
    if (!summary.promoted) continue;
    const full = await getSnippet(store, agent, summary.name);
    if (full !== null) out.push(snippetSkill(full));
  }
  return out;
}
