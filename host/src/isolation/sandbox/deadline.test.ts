// startDeadline: following a caller's signal, or owning the caller's controller (one abort path),
// and abortError's one code for both ways a deadline ends a call.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { abortError, startDeadline } from "./deadline.ts";

const codeOf = (e: unknown) => (e as { code?: string }).code;
const reasonOf = (e: unknown) => (e as { details?: { reason?: string } }).details?.reason;

describe("startDeadline", () => {
  it("following a signal: aborts its own signal at wallMs with AIRLOCK_SANDBOX_TIMEOUT (wallMs)", async () => {
    const outer = new AbortController();
    const deadline = startDeadline(20, outer.signal);
    expect(deadline.signal).not.toBe(outer.signal);
    await sleep(60);
    expect(deadline.signal.aborted).toBe(true);
    expect(codeOf(deadline.signal.reason)).toBe("AIRLOCK_SANDBOX_TIMEOUT");
    expect(reasonOf(deadline.signal.reason)).toBe("wallMs");
    expect(outer.signal.aborted).toBe(false);
    deadline.clear();
  });

  it("following a signal: the caller's abort ends it as 'signal'", () => {
    const outer = new AbortController();
    const deadline = startDeadline(10_000, outer.signal);
    outer.abort();
    expect(reasonOf(deadline.signal.reason)).toBe("signal");
    deadline.clear();
  });

  it("owning a controller: the timer aborts that controller, no second signal", async () => {
    const own = new AbortController();
    const deadline = startDeadline(20, own, 10);
    expect(deadline.signal).toBe(own.signal);
    await sleep(10);
    expect(own.signal.aborted).toBe(false); // wallMs + slackMs = 30 ms
    await sleep(60);
    expect(own.signal.aborted).toBe(true);
    expect(codeOf(abortError(own.signal, 20))).toBe("AIRLOCK_SANDBOX_TIMEOUT");
    expect(reasonOf(abortError(own.signal, 20))).toBe("wallMs");
  });

  it("owning a controller: a cancel (the controller's own abort) reads as 'signal'; clear() stops the timer", async () => {
    const own = new AbortController();
    const deadline = startDeadline(20, own);
    own.abort();
    const error = abortError(own.signal, 20);
    expect(codeOf(error)).toBe("AIRLOCK_SANDBOX_TIMEOUT");
    expect(reasonOf(error)).toBe("signal");

    const other = new AbortController();
    const cleared = startDeadline(20, other);
    cleared.clear();
    await sleep(60);
    expect(other.signal.aborted).toBe(false);
    deadline.clear();
  });

  it("owning a controller that has already aborted: no timer, the signal is already over", () => {
    const own = new AbortController();
    own.abort();
    const deadline = startDeadline(20, own);
    expect(deadline.signal.aborted).toBe(true);
    deadline.clear();
  });
});
