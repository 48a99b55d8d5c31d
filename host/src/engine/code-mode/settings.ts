// Code-mode settings of one agent: whether it is on, whether the agent's listing shows only
// search_tools and run_code (`exclusive`), whether run_code's code gets the per-conversation
// scratch store (`scratch`, off by default; scratch.ts), and the limits every run_code call of
// that agent runs under. Stored in the store, per agent, as one JSON row of the agent's state under the reserved
// namespace `airlock` (no plugin can hold that namespace, so no plugin's ctx.state reaches it).
// Invariants: a change is validated whole before anything is written (an unknown field or a
// limit outside its range is AIRLOCK_CODE_SETTINGS_INVALID and nothing changes); a stored row
// that no longer parses reads as the defaults with code mode off, never as a crash.
import type { CodeModeChange, CodeModeLimits, CodeModeSettings } from "../../contracts/code-mode.ts";
import type { Store } from "../../state/store/types.ts";
import { codeModeError } from "./errors.ts";

export type { CodeModeChange, CodeModeLimits, CodeModeSettings };

export const DEFAULT_CODE_MODE_LIMITS: Readonly<CodeModeLimits> = Object.freeze({
  cpuMs: 2_000,
  wallMs: 120_000,
  memoryMb: 64,
  maxInnerCalls: 50,
  maxInnerBytes: 4 * 1024 * 1024,
  maxLogBytes: 16 * 1024,
  maxCodeBytes: 64 * 1024,
  maxResultBytes: 256 * 1024,
  scratchTtlSeconds: 24 * 3600,
  scratchMaxKeys: 100,
  scratchMaxValueBytes: 16 * 1024,
  scratchMaxBytes: 256 * 1024,
  scratchMaxOps: 200,
});

/** Accepted range of each limit (integers). */
export const CODE_MODE_LIMIT_RANGES: Readonly<Record<keyof CodeModeLimits, readonly [number, number]>> = {
  cpuMs: [10, 60_000],
  wallMs: [100, 3_600_000],
  memoryMb: [8, 1_024],
  maxInnerCalls: [0, 10_000],
  maxInnerBytes: [0, 64 * 1024 * 1024],
  maxLogBytes: [0, 1024 * 1024],
  maxCodeBytes: [1, 1024 * 1024],
  maxResultBytes: [1024, 16 * 1024 * 1024],
  scratchTtlSeconds: [1, 30 * 24 * 3600],
  scratchMaxKeys: [1, 10_000],
  scratchMaxValueBytes: [16, 1024 * 1024],
  scratchMaxBytes: [16, 16 * 1024 * 1024],
  scratchMaxOps: [1, 10_000],
};

const OFF: CodeModeSettings = {
  enabled: false,
  exclusive: false,
  scratch: false,
  snippets: false,
  limits: { ...DEFAULT_CODE_MODE_LIMITS },
};

export function defaultSettings(): CodeModeSettings {
  return structuredClone(OFF);
}

const STATE_CONVERSATION = "@agent";
const STATE_NAMESPACE = "airlock";
const STATE_KEY = "code-mode";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The settings after `change`; throws AIRLOCK_CODE_SETTINGS_INVALID naming the first bad field. */
export function applyChange(current: CodeModeSettings, change: unknown): CodeModeSettings {
  if (!isRecord(change)) throw codeModeError("AIRLOCK_CODE_SETTINGS_INVALID", "the change must be an object");
  const next = structuredClone(current);
  for (const [key, value] of Object.entries(change)) {
    if (key === "enabled" || key === "exclusive" || key === "scratch" || key === "snippets") {
      if (typeof value !== "boolean")
        throw codeModeError("AIRLOCK_CODE_SETTINGS_INVALID", `${key} must be true or false`);
      next[key] = value;
    } else if (key === "limits") {
      if (!isRecord(value))
        throw codeModeError("AIRLOCK_CODE_SETTINGS_INVALID", "limits must be an object of numbers");
      for (const [name, n] of Object.entries(value)) {
        const range = CODE_MODE_LIMIT_RANGES[name as keyof CodeModeLimits];
        if (range === undefined || !Object.hasOwn(CODE_MODE_LIMIT_RANGES, name)) {
          throw codeModeError(
            "AIRLOCK_CODE_SETTINGS_INVALID",
            `unknown limit ${JSON.stringify(name)}; accepted: ${Object.keys(CODE_MODE_LIMIT_RANGES).join(", ")}`,
          );
        }
        if (typeof n !== "number" || !Number.isInteger(n) || n < range[0] || n > range[1]) {
          throw codeModeError(
            "AIRLOCK_CODE_SETTINGS_INVALID",
            `limits.${name} must be an integer from ${range[0]} to ${range[1]}`,
          );
        }
        next.limits[name as keyof CodeModeLimits] = n;
      }
    } else {
      throw codeModeError(
        "AIRLOCK_CODE_SETTINGS_INVALID",
        `unknown field ${JSON.stringify(key)}; accepted: enabled, exclusive, scratch, snippets, limits`,
      );
    }
  }
  return next;
}

export async function readSettings(store: Store, agent: string): Promise<CodeModeSettings> {
  const json = await store.getState(agent, STATE_CONVERSATION, STATE_NAMESPACE, STATE_KEY);
  if (json === null) return defaultSettings();
  try {
    return applyChange(defaultSettings(), JSON.parse(json));
  } catch {
    return defaultSettings(); // a row this version cannot read: off, never a crash
  }
}

export async function writeSettings(store: Store, agent: string, settings: CodeModeSettings): Promise<void> {
  const ok = await store.setState(
    agent,
    STATE_CONVERSATION,
    STATE_NAMESPACE,
    STATE_KEY,
    JSON.stringify(settings),
    64 * 1024,
  );
  if (!ok) throw codeModeError("AIRLOCK_CODE_SETTINGS_INVALID", "the settings could not be stored");
}
