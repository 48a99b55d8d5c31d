// What a people-in-the-loop question waits on after the person opened a host page (people.ts):
// the missing secrets being set, or any condition a capability names (an OAuth connection).
// Invariants: a wait re-checks at least every second, ends at once when the call's signal
// aborts, and never outlives its timeout; it answers whether the condition held, never throws
// on its own account (a failing check propagates).
import type { AirlockHost } from "../../contracts/host.ts";

/** Waits until every key is set for the agent (woken by secret changes, re-checked every second). */
export async function waitForSecrets(
  host: AirlockHost,
  agent: string,
  keys: readonly string[],
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<boolean> {
  const allSet = async () => {
    const views = await host.listSecrets(agent);
    return keys.every((key) => views.some((v) => v.key === key && v.set));
  };
  const deadline = Date.now() + timeoutMs;
  while (true) {
    if (await allSet()) return true;
    if (signal?.aborted === true || Date.now() >= deadline) return false;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        off();
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(1000, Math.max(0, deadline - Date.now())));
      const off = host.on("tools.changed", (event) => {
        if (event.reason === "secrets" && (event.agent === agent || event.agent === null)) done();
      });
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}

/** Re-checks `done` every second until it holds, the signal aborts or the time is up. */
export async function waitUntil(
  done: () => Promise<boolean>,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    if (await done()) return true;
    if (signal?.aborted === true || Date.now() >= deadline) return false;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.min(1000, Math.max(0, deadline - Date.now())));
      signal?.addEventListener("abort", wake, { once: true });
    });
  }
}
