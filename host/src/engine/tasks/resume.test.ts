// Resuming the tasks of a replica that died, on the embedded (SQLite) host: rows left claimed by
// a replica that stopped beating (as a crashed earlier process of this host leaves them) are
// picked up by the live host's sweep. A read-only tool's task runs again and completes; a task of
// a tool that is not read-only, one whose row says resumable but whose tool is not read-only any
// more, and one already resumed `resumeLimit` times fail with AIRLOCK_TASK_REPLICA_LOST; each
// resume and each loss is audited. And the decision itself (taskIsResumable).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AirlockHost } from "../../contracts/host.ts";
import { createHost } from "../../host.ts";
import { openStore } from "../../state/store/index.ts";
import type { Store } from "../../state/store/types.ts";
import { kitTarball } from "../../surfaces/http/test-support.ts";
import { taskIsResumable } from "./resumable.ts";
import { JOBS } from "./test-support.ts";

describe("taskIsResumable", () => {
  it("takes only a tool that declares itself read-only", () => {
    expect(taskIsResumable({ annotations: { readOnlyHint: true } })).toBe(true);
    expect(taskIsResumable({ annotations: { readOnlyHint: false } })).toBe(false);
    expect(taskIsResumable({ annotations: { idempotentHint: true } })).toBe(false);
    expect(taskIsResumable({ annotations: {} })).toBe(false);
    expect(taskIsResumable({})).toBe(false);
    expect(taskIsResumable(undefined)).toBe(false);
  });

  it("judges a tool that declares per-tool grants by them, not by its claim", () => {
    const claims = { readOnlyHint: true };
    expect(taskIsResumable({ annotations: claims, uses: { knowledge: "write" } })).toBe(false);
    expect(
      taskIsResumable({ annotations: claims, uses: { fetch: [{ host: "a.example", methods: ["POST"] }] } }),
    ).toBe(false);
    expect(taskIsResumable({ annotations: {}, uses: { knowledge: "read", state: "read" } })).toBe(true);
  });
});

describe("tasks left by a dead replica, on the embedded host", () => {
  let dir: string;
  let host: AirlockHost;
  let side: Store;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-task-resume-"));
    host = await createHost({
      dataDir: dir,
      sandbox: { mode: "in-process" },
      onInternalError: () => undefined,
      replica: { id: "live", heartbeatMs: 100, staleMs: 1000 },
      tasks: { pollIntervalMs: 100, resumeLimit: 2 },
    });
    await host.plugins.installTarball(kitTarball(JOBS), "jobs.tgz", { allowUnsigned: true });
    await host.createAgent("alpha");
    await host.setToolsEnabled("alpha", { "jobs:crunch": true, "jobs:stamp": true });
    // A second connection to the same file plays the replica that died holding the tasks.
    side = await openStore({ kind: "sqlite", dataDir: dir });
  });
  afterAll(async () => {
    await side?.close();
    await host?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A task row as the dead replica "gone" left it: claimed, last beat a minute ago. */
  const leftBehind = async (id: string, toolName: string, resumable: boolean, resumes = 0): Promise<void> => {
    const past = Date.now() - 60_000;
    await side.tasks.insertTask({
      id,
      agent: "alpha",
      toolName,
      conversationId: "c",
      input: { ms: 50 },
      options: {},
      createdAt: past,
      ttlMs: 3_600_000,
      resumable,
    });
    expect(await side.tasks.claimTask(id, "gone", past)).not.toBeNull();
    for (let i = 0; i < resumes; i++) {
      const stale = { id, replica: i === 0 ? "gone" : `gone${i}`, attempts: i };
      expect(
        await side.tasks.resumeTask(stale, past + 1, `gone${i + 1}`, "earlier resume", past),
      ).not.toBeNull();
    }
  };
  const settled = (id: string) => host.tasks.wait("alpha", id);
  const auditOf = async (id: string) =>
    (await host.queryAudit({ agent: "alpha", kind: "tool", limit: 500 }))
      .filter((e) => (e.details as { taskId?: string } | null)?.taskId === id)
      .map((e) => ({ action: e.action, details: e.details }));

  it("runs a read-only tool's task again here and completes it, audited once as task.resumed", async () => {
    await leftBehind("ro", "jobs:crunch", true);
    const task = await settled("ro");
    expect(task).toMatchObject({
      status: "completed",
      statusMessage: "completed after 1 resume on another replica",
      outcome: { result: { content: [{ type: "text", text: "crunched 50 ms" }] } },
    });
    expect((await side.tasks.getTask("alpha", "ro", Date.now()))?.attempts).toBe(1);
    expect(await auditOf("ro")).toEqual([
      {
        action: "task.resumed",
        details: { taskId: "ro", attempt: 1, lostReplica: "gone", replica: "live" },
      },
    ]);
  });

  it("fails a task of a tool that is not read-only with AIRLOCK_TASK_REPLICA_LOST, never running it", async () => {
    await leftBehind("rw", "jobs:stamp", false);
    const task = await settled("rw");
    expect(task).toMatchObject({ status: "failed", error: { code: "AIRLOCK_TASK_REPLICA_LOST" } });
    expect(await side.tasks.getTask("alpha", "rw", Date.now())).toMatchObject({
      attempts: 0,
      replica: "gone",
    });
    expect(await auditOf("rw")).toEqual([{ action: "task.lost", details: { taskId: "rw", attempts: 0 } }]);
  });

  it("does not run again a task whose tool is no longer read-only, even if its row says resumable", async () => {
    await leftBehind("was-ro", "jobs:stamp", true);
    const task = await settled("was-ro");
    expect(task).toMatchObject({ status: "failed", error: { code: "AIRLOCK_TASK_REPLICA_LOST" } });
    expect(task?.error?.message).toContain("no longer read-only");
    expect((await auditOf("was-ro")).map((e) => e.action)).toEqual(["task.lost"]);
    const tool = (await host.queryAudit({ agent: "alpha", tool: "stamp", limit: 500 })).filter(
      (e) => e.action !== "task.lost",
    );
    expect(tool).toEqual([]); // the call never ran
  });

  it("fails a task already resumed resumeLimit times", async () => {
    await leftBehind("worn", "jobs:crunch", true, 2);
    const task = await settled("worn");
    expect(task).toMatchObject({ status: "failed", error: { code: "AIRLOCK_TASK_REPLICA_LOST" } });
    expect(await auditOf("worn")).toEqual([
      { action: "task.lost", details: { taskId: "worn", attempts: 2 } },
    ]);
  });
});
