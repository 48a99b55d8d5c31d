// Conformance tests of the task rows (store/task-types.ts): binding to the agent, TTL, the
// conditional transitions (claim once, settle once, cancel only while working), stale-replica
// failure and paging. Registered by storeConformance (./conformance.ts).
import { expect, it } from "vitest";
import type { NewTaskRow } from "./task-types.ts";
import type { Store } from "./types.ts";

const NOW = 1_800_000_000_000;

export function newTask(id: string, over: Partial<NewTaskRow> = {}): NewTaskRow {
  return {
    id,
    agent: "a",
    toolName: "kit:slow",
    conversationId: "c",
    input: { n: 1 },
    options: { autoApprove: true },
    createdAt: NOW,
    ttlMs: 60_000,
    resumable: false,
    ...over,
  };
}

export function taskConformance(s: () => Store): void {
  it("keeps a task bound to its agent and hides it past its TTL", async () => {
    const { tasks } = s();
    await tasks.insertTask(newTask("t1"));
    expect(await tasks.getTask("a", "t1", NOW + 1)).toMatchObject({
      id: "t1",
      status: "working",
      replica: null,
      input: { n: 1 },
      options: { autoApprove: true },
      createdAt: NOW,
      expiresAt: NOW + 60_000,
    });
    expect(await tasks.getTask("b", "t1", NOW + 1)).toBeNull();
    expect(await tasks.getTask("a", "t1", NOW + 60_000)).toBeNull();
    expect(await tasks.cancelTask("b", "t1", "no", NOW + 1)).toBeNull();
    expect(await tasks.pruneTasks(NOW + 60_000)).toBe(1);
    expect(await tasks.getTask("a", "t1", NOW)).toBeNull();
  });

  it("claims a queued task once, settles it once and drops its input", async () => {
    const { tasks } = s();
    await tasks.insertTask(newTask("t2"));
    expect(await tasks.countQueuedTasks()).toBe(1);
    expect((await tasks.claimTask("t2", "r1", NOW + 5))?.replica).toBe("r1");
    expect(await tasks.claimTask("t2", "r2", NOW + 6)).toBeNull();
    expect(await tasks.countQueuedTasks()).toBe(0);
    const outcome = { callId: "c1", result: { content: [] } };
    const settled = await tasks.settleTask("t2", { status: "completed", outcome }, NOW + 10);
    expect(settled).toMatchObject({ status: "completed", outcome, input: {}, updatedAt: NOW + 10 });
    expect(await tasks.settleTask("t2", { status: "failed", errorCode: "X" }, NOW + 11)).toBeNull();
    expect(await tasks.cancelTask("a", "t2", "late", NOW + 12)).toMatchObject({
      cancelled: false,
      row: { status: "completed" },
    });
  });

  it("cancels a working task so that its result can no longer be written", async () => {
    const { tasks } = s();
    await tasks.insertTask(newTask("t3"));
    await tasks.claimTask("t3", "r1", NOW);
    expect(await tasks.cancelTask("a", "t3", "asked", NOW + 1)).toMatchObject({
      cancelled: true,
      row: { status: "cancelled", statusMessage: "asked" },
    });
    expect((await tasks.cancelTask("a", "t3", "again", NOW + 2))?.cancelled).toBe(false);
    expect(await tasks.beatTasks(["t3"], "r1", NOW + 2)).toEqual([{ id: "t3", status: "cancelled" }]);
    expect(await tasks.settleTask("t3", { status: "completed", outcome: {} }, NOW + 3)).toBeNull();
  });

  it("fails the claimed working tasks of a replica that stopped beating, with the code", async () => {
    const { tasks } = s();
    await tasks.insertTask(newTask("t4"));
    await tasks.insertTask(newTask("t5"));
    await tasks.insertTask(newTask("t6"));
    await tasks.claimTask("t4", "dead", NOW);
    await tasks.claimTask("t5", "alive", NOW);
    await tasks.beatTasks(["t5"], "alive", NOW + 10_000);
    const failed = await tasks.failStaleTasks(
      NOW + 5_000,
      2,
      "AIRLOCK_TASK_REPLICA_LOST",
      "gone",
      NOW + 10_001,
    );
    expect(failed).toEqual([{ id: "t4", agent: "a", toolName: "kit:slow", attempts: 0 }]);
    expect(await tasks.getTask("a", "t4", NOW + 10_002)).toMatchObject({
      status: "failed",
      errorCode: "AIRLOCK_TASK_REPLICA_LOST",
      errorMessage: "gone",
    });
    expect((await tasks.getTask("a", "t5", NOW + 10_002))?.status).toBe("working");
    // A queued (unclaimed) task is the queue's to deliver, never failed as stale.
    expect((await tasks.getTask("a", "t6", NOW + 10_002))?.status).toBe("working");
  });

  taskResumeConformance(s);

  it("lists an agent's tasks newest first, page by page", async () => {
    const { tasks } = s();
    for (let i = 0; i < 5; i++) await tasks.insertTask(newTask(`p${i}`, { createdAt: NOW + i }));
    await tasks.insertTask(newTask("other", { agent: "b" }));
    const first = await tasks.listTasks("a", NOW + 10, null, 3);
    expect(first.map((t) => t.id)).toEqual(["p4", "p3", "p2"]);
    const last = first.at(-1)!;
    const second = await tasks.listTasks("a", NOW + 10, { createdAt: last.createdAt, id: last.id }, 3);
    expect(second.map((t) => t.id)).toEqual(["p1", "p0"]);
  });
}

/** The moves of a task between replicas: resume of a dead replica's task, its limit, its fences. */
function taskResumeConformance(s: () => Store): void {
  it("resumes a dead replica's resumable task on exactly one replica, counting the attempt, up to the limit", async () => {
    const { tasks } = s();
    await tasks.insertTask(newTask("r1", { resumable: true }));
    await tasks.insertTask(newTask("r2"));
    await tasks.claimTask("r1", "dead", NOW);
    await tasks.claimTask("r2", "dead", NOW);
    const staleBefore = NOW + 5_000;
    // Only the resumable one is a candidate; the other is failed by the sweep, never resumed.
    const stale = await tasks.staleResumableTasks(staleBefore, 2, 10, NOW + 6_000);
    expect(stale).toEqual([{ id: "r1", replica: "dead", attempts: 0 }]);
    const failed = await tasks.failStaleTasks(
      staleBefore,
      2,
      "AIRLOCK_TASK_REPLICA_LOST",
      "gone",
      NOW + 6_000,
    );
    expect(failed.map((f) => f.id)).toEqual(["r2"]);
    expect((await tasks.getTask("a", "r1", NOW + 6_000))?.status).toBe("working");
    // Two replicas race for it: exactly one gets the row.
    const first = stale[0]!;
    const race = await Promise.all([
      tasks.resumeTask(first, staleBefore, "b", "resumed on b", NOW + 6_000),
      tasks.resumeTask(first, staleBefore, "c", "resumed on c", NOW + 6_000),
    ]);
    const won = race.filter((r) => r !== null);
    expect(won).toHaveLength(1);
    const winner = won[0]!.replica as string;
    expect(won[0]).toMatchObject({ status: "working", attempts: 1, beatAt: NOW + 6_000, input: { n: 1 } });
    expect(won[0]?.statusMessage).toBe(`resumed on ${winner}`);
    // The same stale view again (a late sweep) claims nothing: the row moved on.
    expect(await tasks.resumeTask(first, staleBefore, "d", "late", NOW + 6_001)).toBeNull();
    // The dead replica's beats and settlement no longer reach the row; the winner's do.
    expect(await tasks.beatTasks(["r1"], "dead", NOW + 6_002)).toEqual([]);
    expect(
      await tasks.settleTask("r1", { status: "completed", outcome: {} }, NOW + 6_003, "dead"),
    ).toBeNull();
    expect(await tasks.beatTasks(["r1"], winner, NOW + 6_004)).toEqual([{ id: "r1", status: "working" }]);
    // Dead again: resumed a second time, then (limit 2) failed with the code.
    const again = await tasks.staleResumableTasks(NOW + 20_000, 2, 10, NOW + 20_000);
    expect(again).toEqual([{ id: "r1", replica: winner, attempts: 1 }]);
    expect((await tasks.resumeTask(again[0]!, NOW + 20_000, "e", "again", NOW + 20_000))?.attempts).toBe(2);
    expect(await tasks.staleResumableTasks(NOW + 40_000, 2, 10, NOW + 40_000)).toEqual([]);
    const lost = await tasks.failStaleTasks(
      NOW + 40_000,
      2,
      "AIRLOCK_TASK_REPLICA_LOST",
      "gone",
      NOW + 40_000,
    );
    expect(lost).toEqual([{ id: "r1", agent: "a", toolName: "kit:slow", attempts: 2 }]);
    expect(await tasks.getTask("a", "r1", NOW + 40_001)).toMatchObject({
      status: "failed",
      errorCode: "AIRLOCK_TASK_REPLICA_LOST",
      attempts: 2,
      input: {},
    });
  });

  it("never resumes a task that expired, was cancelled or whose replica still beats", async () => {
    const { tasks } = s();
    await tasks.insertTask(newTask("x1", { resumable: true }));
    await tasks.insertTask(newTask("x2", { resumable: true }));
    await tasks.insertTask(newTask("x3", { resumable: true }));
    for (const id of ["x1", "x2", "x3"]) await tasks.claimTask(id, "r", NOW);
    await tasks.cancelTask("a", "x2", "asked", NOW + 1);
    await tasks.beatTasks(["x3"], "r", NOW + 9_000);
    expect(await tasks.staleResumableTasks(NOW + 5_000, 2, 10, NOW + 9_001)).toEqual([
      { id: "x1", replica: "r", attempts: 0 },
    ]);
    // Past its TTL nothing is resumed.
    expect(await tasks.staleResumableTasks(NOW + 5_000, 2, 10, NOW + 60_000)).toEqual([]);
    const stale = { id: "x1", replica: "r", attempts: 0 };
    expect(await tasks.resumeTask(stale, NOW + 5_000, "b", "late", NOW + 60_000)).toBeNull();
    expect(await tasks.resumeTask({ ...stale, id: "x3" }, NOW + 5_000, "b", "alive", NOW + 9_001)).toBeNull();
  });
}
