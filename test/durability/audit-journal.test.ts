// Durability of the audit journal: a process appending audit entries through the host's audit
// writer is killed with SIGKILL while batches are committing; after reopening the store, every
// entry it acknowledged is in the table exactly once and in order, nothing it did not append is,
// and the journal is gone. A host killed right after its last tool call (its event loop held, so
// no batch commits first) keeps every call's audit, the tool calls' own entries included.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../host/src/state/store/index.ts";
import { JOURNAL_DIR } from "../../host/src/state/store/sqlite/audit-journal.ts";

const root = mkdtempSync(join(tmpdir(), "airlock-audit-journal-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Runs a child script and SIGKILLs it at the first stdout line `killAt` says yes to; resolves
 * with the lines it printed once it died (by that signal, or the test fails).
 */
async function runAndKill(
  script: string,
  args: string[],
  killAt: (line: string) => boolean,
): Promise<string[]> {
  const child: ChildProcess = spawn(process.execPath, [join(import.meta.dirname, script), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => {
    stderr += String(d);
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => resolve(signal)),
  );
  const lines: string[] = [];
  for await (const line of createInterface({ input: child.stdout! })) {
    lines.push(line);
    if (killAt(line)) child.kill("SIGKILL");
  }
  expect(await exited, `child did not die by SIGKILL; stderr: ${stderr}`).toBe("SIGKILL");
  return lines;
}

/** audit-child.ts: the last entry it acknowledged before it was killed after `killAfter`. */
async function appendAndKill(dataDir: string, killAfter: number): Promise<number> {
  const lines = await runAndKill(
    "audit-child.ts",
    [dataDir, String(killAfter)],
    (l) => l === `A ${killAfter}`,
  );
  const acks = lines.filter((l) => l.startsWith("A "));
  return acks.length === 0 ? -1 : Number(acks.at(-1)!.slice(2));
}

describe("audit journal under SIGKILL", () => {
  it("keeps every acknowledged entry, once and in order, and replays the journal away", async () => {
    const dataDir = join(root, "kill");
    const acked = await appendAndKill(dataDir, 3000);
    expect(acked).toBeGreaterThanOrEqual(3000);
    // the killed process left acknowledged entries in its journal that no batch had committed
    const raw = new DatabaseSync(join(dataDir, "audit.db"));
    const committed = Number((raw.prepare("SELECT COUNT(*) AS n FROM audit").get() as { n: number }).n);
    raw.close();
    expect(committed).toBeLessThan(acked + 1);
    const store = await openStore({ kind: "sqlite", dataDir });
    try {
      const rows = [];
      let before: number | undefined;
      for (;;) {
        const page = await store.queryAudit({ limit: 1000, ...(before === undefined ? {} : { before }) });
        if (page.length === 0) break;
        rows.push(...page);
        before = page.at(-1)!.id;
      }
      const order = rows.reverse().map((r) => Number(r.action.slice("state.get-".length)));
      // 0..n in order, no gap, no repeat; n is at least the last acknowledged entry (one more
      // may have been journaled and not yet printed when the kill landed)
      expect(order.length).toBeGreaterThanOrEqual(acked + 1);
      expect(order.length).toBeLessThanOrEqual(acked + 2);
      expect(order).toEqual(Array.from({ length: order.length }, (_, i) => i));
      expect(rows.every((r) => r.details?.i === Number(r.action.slice(10)))).toBe(true);
    } finally {
      await store.close();
    }
    expect(readdirSync(join(dataDir, JOURNAL_DIR))).toEqual([]);
  }, 60_000);

  it("keeps the audit of a host's finished tool calls, their own entries included", async () => {
    const CALLS = 20;
    const lines = await runAndKill("host-audit-child.ts", [String(CALLS)], (l) => l === `A ${CALLS - 1}`);
    const dataDir = lines.find((l) => l.startsWith("DIR "))!.slice(4);
    try {
      const store = await openStore({ kind: "sqlite", dataDir });
      try {
        const rows = (await store.queryAudit({ limit: 1000 })).reverse();
        const calls = rows.filter((r) => r.kind === "tool" && r.action === "call");
        expect(calls).toHaveLength(CALLS);
        expect(calls.every((r) => r.plugin === "journal" && r.tool === "touch" && r.success)).toBe(true);
        // in call order: each call's two capability entries, then its own entry
        const trail = rows
          .filter((r) => r.kind === "capability" || (r.kind === "tool" && r.action === "call"))
          .map((r) => (r.kind === "tool" ? "call" : r.action));
        expect(trail).toEqual(Array.from({ length: CALLS }, () => ["state.set", "state.get", "call"]).flat());
      } finally {
        await store.close();
      }
      expect(readdirSync(join(dataDir, JOURNAL_DIR))).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
