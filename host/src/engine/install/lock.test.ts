import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lockDir, withNamespaceLock } from "./lock.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-lock-"));
  mkdirSync(lockDir(dir), { recursive: true });
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("withNamespaceLock", () => {
  it("runs operations on one namespace one at a time, in call order", async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = withNamespaceLock(dir, "weather", async () => {
      order.push("first:start");
      await gate;
      order.push("first:end");
    });
    const second = withNamespaceLock(dir, "weather", async () => {
      order.push("second");
    });
    const other = withNamespaceLock(dir, "maps", async () => {
      order.push("maps");
    });
    await other;
    expect(order).toContain("maps");
    expect(order).toContain("first:start");
    expect(order).not.toContain("second");
    release();
    await Promise.all([first, second]);
    expect(order.filter((e) => e !== "maps")).toEqual(["first:start", "first:end", "second"]);
  });

  it("holds a lock file with its pid while running and removes it after, even on failure", async () => {
    const file = join(lockDir(dir), "weather.lock");
    await expect(
      withNamespaceLock(dir, "weather", async () => {
        expect(readFileSync(file, "utf8")).toBe(String(process.pid));
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(existsSync(file)).toBe(false);
    expect(await withNamespaceLock(dir, "weather", async () => "next runs")).toBe("next runs");
  });

  it("takes over a lock file left by a dead process", async () => {
    writeFileSync(join(lockDir(dir), "weather.lock"), "2147483646");
    expect(await withNamespaceLock(dir, "weather", async () => "ran")).toBe("ran");
  });

  it("gives up with AIRLOCK_INSTALL_LOCKED while a live process holds the lock", async () => {
    writeFileSync(join(lockDir(dir), "weather.lock"), String(process.ppid));
    await expect(withNamespaceLock(dir, "weather", async () => "ran", 50)).rejects.toMatchObject({
      code: "AIRLOCK_INSTALL_LOCKED",
    });
  });
});
