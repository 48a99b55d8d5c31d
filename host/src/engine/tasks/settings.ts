// TaskSettings from the host options: defaults filled, each value checked (a positive integer;
// concurrency and resumeLimit may be 0), so a malformed setting fails createHost, not the first task.
import { taskError } from "./errors.ts";
import { DEFAULT_TASK_SETTINGS } from "./service.ts";
import type { TaskSettings } from "./types.ts";

const positive = (name: string, value: unknown, zero = false): number => {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < (zero ? 0 : 1)) {
    throw taskError(
      "AIRLOCK_TASK_SETTINGS_INVALID",
      `task setting ${name} must be a ${zero ? "non-negative" : "positive"} integer`,
    );
  }
  return value;
};

export function resolveTaskSettings(options: Partial<TaskSettings> = {}): TaskSettings {
  const merged = {
    ...DEFAULT_TASK_SETTINGS,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  };
  const toolWallMs: Record<string, number> = {};
  for (const [tool, ms] of Object.entries(merged.toolWallMs ?? {}))
    toolWallMs[tool] = positive(`toolWallMs.${tool}`, ms);
  return {
    ttlMs: positive("ttlMs", merged.ttlMs),
    wallMs: positive("wallMs", merged.wallMs),
    toolWallMs,
    pollIntervalMs: positive("pollIntervalMs", merged.pollIntervalMs),
    concurrency: positive("concurrency", merged.concurrency, true),
    resumeLimit: positive("resumeLimit", merged.resumeLimit, true),
  };
}
