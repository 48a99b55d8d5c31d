// Set-up shared by the hostile sandbox suites: the hostile fixture bundle loaded with tight
// limits into a harness, a canary secret the bundle's tools never declare, and the containment
// check every hostile test ends with (the exact code was asserted by the test itself; this
// asserts the host still serves a normal call and the canary appears nowhere).
import { expect } from "vitest";
import type { EffectiveLimits, SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { WorkerDeathNotice } from "../../host/src/isolation/sandbox/worker/worker-fleet.ts";
import { fixtureBundle, makePlugin } from "./sandbox-fixtures.ts";
import { createHarness, type Harness, type SandboxMode } from "./sandbox-harness.ts";

export const CANARY = "canary-7f3a9c2e-secret-value";
export const DECLARED_VALUE = "declared-api-key-value";

const HOSTILE_TOOLS = (fixtureBundle("hostile").match(/^ {4}([a-zA-Z]+):/gm) ?? []).map((m) =>
  m.trim().slice(0, -1),
);

export async function hostileSetup(
  mode: SandboxMode,
  limits: Partial<EffectiveLimits> = {},
  options: {
    workers?: number;
    pingTimeoutMs?: number;
    onWorkerDeath?: (notice: WorkerDeathNotice) => void;
  } = {},
): Promise<{ h: Harness; plugin: SandboxPlugin }> {
  const h = await createHarness(mode, options);
  const plugin = hostilePlugin("hostile", limits);
  await h.sandbox.load(plugin);
  for (const agent of ["agent-a", "agent-b"]) {
    await h.setSecret(agent, "canary_key", CANARY);
    await h.setSecret(agent, "api_key", DECLARED_VALUE);
  }
  return { h, plugin };
}

/** The hostile fixture bundle as a plugin: every tool declares `api_key` only; tight limits. */
export function hostilePlugin(namespace: string, limits: Partial<EffectiveLimits> = {}): SandboxPlugin {
  return makePlugin({
    namespace,
    code: fixtureBundle("hostile"),
    tools: HOSTILE_TOOLS.map((name) => ({ name, secrets: ["api_key"] })),
    limits: { cpuMs: 150, wallMs: 25_000, memoryMb: 32, maxResultBytes: 64 * 1024, ...limits },
  });
}

/** The host still serves a normal call of the same plugin, and the canary leaked nowhere. */
export async function expectContained(h: Harness, plugin: SandboxPlugin, agent = "agent-a"): Promise<void> {
  const result = await h.call(plugin, "echo", { still: "alive" }, { agent });
  expect(result.structuredContent).toEqual({ echoed: { still: "alive" } });
  expect(h.everything()).not.toContain(CANARY);
  expect(JSON.stringify(await h.store.queryAudit({}))).not.toContain(CANARY);
}

/** Resolves once `condition()` holds (polled; the test's own timeout bounds the wait). */
export async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
