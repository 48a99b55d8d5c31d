// `airlock backup` and `airlock restore` as an operator runs them: the real binaries, against a
// data dir a real `airlock serve` is serving. A backup taken while the host runs restores to
// another path, where a new `airlock serve` serves the secret-using tool, the document and the
// agent token over its admin API. A backup taken during a burst of acknowledged admin writes
// (agents created by four concurrent clients) restores to a store holding every write
// acknowledged before the backup command started, each with its audit entry, and both SQLite
// files pass integrity_check. Refusals print one line `error: AIRLOCK_…: …` and exit 1.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost } from "../../host/src/host.ts";
import { type Populated, populate } from "../support/backup-fixture.ts";
import { cli, type Daemon, daemon } from "./cli-support.ts";

const work = mkdtempSync(join(tmpdir(), "airlock-backup-e2e-"));
const env = { HOME: join(work, "home"), XDG_STATE_HOME: join(work, "state"), AIRLOCK_SANDBOX: "in-process" };
const source = join(work, "source");
let facts: Populated;
const daemons: Daemon[] = [];

afterAll(async () => {
  for (const d of daemons) await d.stop();
  rmSync(work, { recursive: true, force: true });
});

beforeAll(async () => {
  const host = await createHost({ dataDir: source, sandbox: { mode: "in-process" } });
  try {
    facts = await populate(host);
  } finally {
    await host.close();
  }
}, 120_000);

async function serve(dataDir: string): Promise<{ url: string; operator: string; daemon: Daemon }> {
  const d = await daemon(
    "airlock",
    ["serve", "--data-dir", dataDir, "--port", "0", "--sandbox", "in-process"],
    /Press Ctrl\+C to stop/,
    { env },
  );
  daemons.push(d);
  const url = /Admin API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api/.exec(d.output())?.[1];
  const operator = /Operator token:\s+(\S+)/.exec(d.output())?.[1];
  if (url === undefined || operator === undefined)
    throw new Error(`no admin URL or operator token in:\n${d.output()}`);
  return { url, operator, daemon: d };
}

async function call(url: string, token: string, tool: string, input: unknown): Promise<string> {
  const response = await fetch(`${url}/api/agents/keeper/calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ tool, input }),
  });
  const body = (await response.json()) as { result?: { content?: Array<{ text?: string }> } };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.result?.content?.[0]?.text ?? JSON.stringify(body);
}

function integrity(file: string): string {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("PRAGMA integrity_check").all() as Array<{ integrity_check: string }>)
      .map((r) => r.integrity_check)
      .join("; ");
  } finally {
    db.close();
  }
}

describe("airlock backup / restore (real binaries)", () => {
  it("backs up a running host and serves the restored copy from another path", async () => {
    const running = await serve(source);
    const file = join(work, "running.tar.gz");
    const backup = await cli("airlock", ["backup", file, "--data-dir", source], { env });
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.stderr).toContain("running: online snapshot");
    expect(backup.stdout).toContain("master key: included");
    await running.daemon.stop();

    const target = join(work, "moved", "restored");
    const restore = await cli("airlock", ["restore", file, "--data-dir", target], { env });
    expect(restore.status, restore.stderr).toBe(0);
    expect(restore.stdout).toContain(`into ${target} (verified`);
    const restored = await serve(target);
    expect(await call(restored.url, facts.agentToken, "vault:check", { guess: facts.apiKey })).toBe("match");
    expect(await call(restored.url, facts.agentToken, "vault:recall", { id: facts.documentId })).toBe(
      facts.documentContent,
    );
    const refused = await fetch(`${restored.url}/api/agents/keeper/calls`, {
      method: "POST",
      headers: { authorization: "Bearer alk_ag_not-a-token", "content-type": "application/json" },
      body: JSON.stringify({ tool: "vault:check", input: { guess: "x" } }),
    });
    expect(refused.status).toBe(401);
    await restored.daemon.stop();
  }, 180_000);

  it("keeps every write acknowledged before a backup taken during a burst, nothing half-written", async () => {
    const dataDir = join(work, "burst");
    const host = await serve(dataDir);
    const acked: string[] = [];
    let stop = false;
    let n = 0;
    const writer = async () => {
      while (!stop) {
        const slug = `burst-${n++}`;
        const r = await fetch(`${host.url}/api/agents`, {
          method: "POST",
          headers: { authorization: `Bearer ${host.operator}`, "content-type": "application/json" },
          body: JSON.stringify({ slug }),
        });
        expect(r.status, await r.text()).toBeLessThan(300);
        acked.push(slug);
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    // the backup starts once a good number of writes are acknowledged, and the burst goes on
    for (let i = 0; acked.length < 40; i++) {
      if (i > 6000) throw new Error("the burst did not get going");
      await new Promise((r) => setTimeout(r, 10));
    }
    const before = [...acked];
    const file = join(work, "burst.tar.gz");
    const backup = await cli("airlock", ["backup", file, "--data-dir", dataDir], { env });
    const during = acked.length - before.length;
    stop = true;
    await Promise.all(writers);
    await host.daemon.stop();
    expect(backup.status, backup.stderr).toBe(0);
    expect(during, "writes acknowledged while the backup ran").toBeGreaterThan(0);

    const target = join(work, "burst-restored");
    const restore = await cli("airlock", ["restore", file, "--data-dir", target], { env });
    expect(restore.status, restore.stderr).toBe(0);
    expect(integrity(join(target, "airlock.db"))).toBe("ok");
    expect(integrity(join(target, "audit.db"))).toBe("ok");
    const db = new DatabaseSync(join(target, "airlock.db"), { readOnly: true });
    const audit = new DatabaseSync(join(target, "audit.db"), { readOnly: true });
    try {
      const agents = new Set(
        (
          db.prepare("SELECT slug FROM agents WHERE slug LIKE 'burst-%'").all() as Array<{ slug: string }>
        ).map((r) => r.slug),
      );
      const audited = new Set(
        (
          audit
            .prepare("SELECT agent FROM audit WHERE action = 'agent.create' AND success = 1")
            .all() as Array<{
            agent: string;
          }>
        ).map((r) => r.agent),
      );
      expect(before.filter((s) => !agents.has(s))).toEqual([]);
      expect(before.filter((s) => !audited.has(s))).toEqual([]);
      // whatever else made it in is whole: every restored agent is one the burst acknowledged or was writing
      expect([...agents].filter((s) => !/^burst-\d+$/.test(s) || Number(s.slice(6)) >= n)).toEqual([]);
    } finally {
      db.close();
      audit.close();
    }
  }, 240_000);

  it("refuses a non-empty directory with one coded line, exit 1, and changes nothing", async () => {
    const file = join(work, "stopped.tar.gz");
    expect((await cli("airlock", ["backup", file, "--data-dir", source], { env })).status).toBe(0);
    const target = join(work, "occupied");
    mkdirSync(target);
    writeFileSync(join(target, "notes.txt"), "mine");
    const r = await cli("airlock", ["restore", file, "--data-dir", target], { env });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^error: AIRLOCK_RESTORE_TARGET_NOT_EMPTY: /),
    ]);
    expect(readdirSync(target)).toEqual(["notes.txt"]);
    expect(readdirSync(work).filter((f) => f.startsWith(".occupied"))).toEqual([]);
  }, 120_000);

  it("refuses a damaged archive and an existing backup file with their codes", async () => {
    const file = join(work, "stopped.tar.gz");
    const again = await cli("airlock", ["backup", file, "--data-dir", source], { env });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^error: AIRLOCK_BACKUP_TARGET_EXISTS: /m);
    const damaged = join(work, "damaged.tar.gz");
    writeFileSync(damaged, "this is not a backup\n");
    const r = await cli("airlock", ["restore", damaged, "--data-dir", join(work, "never")], { env });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(/^error: AIRLOCK_RESTORE_ARCHIVE_UNREADABLE: /);
    expect(readdirSync(work).filter((f) => f.includes("never"))).toEqual([]);
  }, 120_000);
});
