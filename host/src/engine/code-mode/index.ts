// Code mode, the part the host wires in: per-agent settings (read, changed) and the host tools
// search_tools and run_code (host-tools.ts) a run of an agent whose operator turned code mode on
// lists, called through the pipeline's stages like any tool (executor "host").
// Contract: `hostTools(agent, served)` is empty when code mode is off for the agent (nothing
// changes for that agent), read at the run's start; `close()` closes the dedicated code-mode
// sandbox (code-sandbox.ts), started on the first run_code call.

import type { ModelTool } from "../../contracts/host.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { HostTool } from "../pipeline/call-types.ts";
import type { EventBus } from "../pipeline/events.ts";
import { isSkillTool } from "../skills/skill-tools.ts";
import { CodeSandbox } from "./code-sandbox.ts";
import { codeModeHostTools } from "./host-tools.ts";
import { applyChange, type CodeModeSettings, readSettings, writeSettings } from "./settings.ts";

export interface CodeModeParts {
  store: Store;
  catalogue: Catalogue;
  events: EventBus;
  audit(entry: AuditInput): Promise<void>;
  /** The host sandbox's mode: code mode runs in worker processes of its own when it is "workers". */
  sandboxMode: "workers" | "in-process";
  report(what: string, error: unknown): void;
}

export interface CodeMode {
  settings(agent: string): Promise<CodeModeSettings>;
  /** Validates the whole change, then stores it; returns the settings now in force. */
  configure(agent: string, change: unknown): Promise<CodeModeSettings>;
  /** search_tools and run_code for a run of `agent` serving `served`, or none when code mode is off. */
  hostTools(agent: string, served: readonly ModelTool[]): Promise<HostTool[]>;
  close(): Promise<void>;
}

export function createCodeMode(parts: CodeModeParts): CodeMode {
  const sandbox = new CodeSandbox({
    mode: parts.sandboxMode,
    report: (line) => parts.report("code-mode sandbox", line),
  });
  const deps = {
    sandbox,
    store: parts.store,
    events: parts.events,
    audit: parts.audit,
    isHarness: (id: string) => {
      if (isSkillTool(id)) return true; // the skills' harness tools (skills/skill-tools.ts)
      const entry = parts.catalogue.get(id);
      return entry !== undefined && entry.tool.harness !== null;
    },
  };
  return {
    settings: (agent) => readSettings(parts.store, agent),
    async configure(agent, change) {
      const next = applyChange(await readSettings(parts.store, agent), change);
      await writeSettings(parts.store, agent, next);
      return next;
    },
    async hostTools(agent, served) {
      const settings = await readSettings(parts.store, agent);
      return settings.enabled ? codeModeHostTools(deps, settings, served) : [];
    },
    close: () => sandbox.close(),
  };
}

export { CODE_MODE_ERRORS } from "./errors.ts";
export type { CodeModeChange, CodeModeLimits, CodeModeSettings } from "./settings.ts";
