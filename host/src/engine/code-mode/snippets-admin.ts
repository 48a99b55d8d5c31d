// host.snippets: what an operator does with an agent's saved snippets (snippets.ts) through the
// library, the admin API and `airlock agents snippets`: list (no code), read one (with its
// code), save one (e.g. from the code of a run_code call they read), promote it into a skill of
// the agent or withdraw it, delete it.
// Invariants: the agent must exist (AIRLOCK_AGENT_NOT_FOUND, like the other agent
// routes); every change is audited (kind admin: snippet.save, snippet.promote, snippet.delete,
// with the name, never the code); a change of promotion raises tools.changed so MCP clients
// re-list prompts.

import type { HostSnippets } from "../../contracts/code-mode.ts";
import type { Store } from "../../state/store/types.ts";
import { type AdminAudit, audited } from "../catalogue/admin-audit.ts";
import { requireAgent } from "../catalogue/agent-tools.ts";
import { codeModeError } from "./errors.ts";
import type { CodeModeSettings } from "./settings.ts";
import { deleteSnippet, getSnippet, listSnippets, promoteSnippet, saveSnippet } from "./snippets.ts";

export type { HostSnippets };

export function createSnippetsAdmin(parts: {
  store: Store;
  admin: AdminAudit;
  settings(agent: string): Promise<CodeModeSettings>;
  announce(agent: string): void;
}): HostSnippets {
  const { store, admin } = parts;
  return {
    async list(agent) {
      await requireAgent(store, agent);
      return listSnippets(store, agent);
    },
    async get(agent, name) {
      await requireAgent(store, agent);
      const found = await getSnippet(store, agent, name);
      if (found === null)
        throw codeModeError("AIRLOCK_CODE_SNIPPET_UNKNOWN", `agent ${agent} has no snippet ${name}`);
      return found;
    },
    async save(agent, name, snippet) {
      await requireAgent(store, agent);
      const { maxCodeBytes } = (await parts.settings(agent)).limits;
      const saved = await audited(admin, "snippet.save", { agent, details: { name } }, () =>
        saveSnippet(store, agent, {
          name,
          description: snippet.description,
          code: snippet.code,
          savedBy: "operator",
          callId: null,
          maxCodeBytes,
        }),
      );
      if (saved.promoted) parts.announce(agent);
      return saved;
    },
    async promote(agent, name, promoted = true) {
      await requireAgent(store, agent);
      const next = await audited(admin, "snippet.promote", { agent, details: { name, promoted } }, () =>
        promoteSnippet(store, agent, name, promoted),
      );
      parts.announce(agent);
      return next;
    },
    async delete(agent, name) {
      await requireAgent(store, agent);
      const was = await getSnippet(store, agent, name);
      const deleted = await audited(admin, "snippet.delete", { agent, details: { name } }, () =>
        deleteSnippet(store, agent, name),
      );
      if (was?.promoted === true) parts.announce(agent);
      return deleted;
    },
  };
}
