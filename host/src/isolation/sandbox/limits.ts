// Per-plugin limits: the operator's ceiling (DEFAULT_LIMITS unless configured) intersected with
// what the manifest asks for. A manifest may ask for less, never more.
// Invariants: every field of the result is a positive integer; memoryMb ≥ 8 (isolated-vm's
// floor); cpuMs ≤ wallMs (a call cannot be granted more CPU than wall time).
import type { RequestedLimits } from "@airlock/sdk/manifest";
import { sandboxError } from "./errors.ts";
import type { EffectiveLimits } from "./types.ts";

/** Defaults, also the ceiling when the operator configures none (see docs/sandbox.md). */
export const DEFAULT_LIMITS: Readonly<EffectiveLimits> = Object.freeze({
  cpuMs: 2_000,
  wallMs: 30_000,
  memoryMb: 128,
  maxInputBytes: 1024 * 1024,
  maxResultBytes: 1024 * 1024,
  concurrency: 4,
  capabilityCalls: 200,
});

/** isolated-vm refuses a smaller heap. */
export const MIN_MEMORY_MB = 8;

const KEYS = Object.keys(DEFAULT_LIMITS) as Array<keyof EffectiveLimits>;

function checked(name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw sandboxError("AIRLOCK_SANDBOX_LIMITS_INVALID", `limit ${name} must be a positive integer`, {
      limit: name,
    });
  }
  return value;
}

/**
 * min(operator ceiling, manifest request) per field; a field the manifest does not ask for gets the
 * ceiling. Throws AIRLOCK_SANDBOX_LIMITS_INVALID on a malformed ceiling; a manifest's request was
 * validated by parseManifest, and is checked again here.
 */
export function resolveLimits(
  operatorCeiling: Partial<EffectiveLimits> = {},
  manifestRequest: RequestedLimits = {},
): EffectiveLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const key of KEYS) {
    const ceiling = checked(key, operatorCeiling[key] ?? DEFAULT_LIMITS[key]);
    const asked = manifestRequest[key];
    out[key] = asked === undefined ? ceiling : Math.min(ceiling, checked(`manifest ${key}`, asked));
  }
  out.memoryMb = Math.max(MIN_MEMORY_MB, out.memoryMb);
  out.cpuMs = Math.min(out.cpuMs, out.wallMs);
  return out;
}
