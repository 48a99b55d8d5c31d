// Durability: a process bursting knowledge writes and artifact puts into the SQLite store is
// killed with SIGKILL mid-burst; after reopening, everything it acknowledged is there and
// intact, nothing is half-written (every stored row matches its deterministic payload, the
// FTS index agrees with the documents, SQLite's integrity check passes), and the store works.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../host/src/state/store/index.ts";
import { AGENT, artifactBytes, CONVERSATION, docContent, sha256 } from "./burst-fixtures.ts";

const root = mkdtempSync(join(tmpdir(), "airlock-durability-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Acks {
  docs: Map<string, string>;
  artifacts: Map<string, { index: number; sha: string }>;
}

/** Runs the burst child until it has acknowledged `killAfter` lines, then SIGKILLs it. */
async function burstAndKill(dataDir: string, first: number, killAfter: number): Promise<Acks> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(import.meta.dirname, "burst-child.ts"), dataDir, String(first)],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.on("data", (d) => {
    stderr += String(d);
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => resolve(signal)),
  );
  const acks: Acks = { docs: new Map(), artifacts: new Map() };
  let count = 0;
  for await (const line of createInterface({ input: child.stdout! })) {
    const [kind, id, a, b] = line.split(" ");
    if (kind === "K") acks.docs.set(id!, a!);
    if (kind === "A") acks.artifacts.set(id!, { index: Number(a), sha: b! });
    if (kind === "K" || kind === "A") count++;
    if (count === killAfter) child.kill("SIGKILL");
  }
  const signal = await exited;
  expect(signal, `child did not die by SIGKILL; stderr: ${stderr}`).toBe("SIGKILL");
  return acks;
}

/** Everything acknowledged is there and intact, every stored doc is intact and indexed, the file is sound. */
async function verify(dataDir: string, acked: Acks): Promise<void> {
  const store = await openStore({ kind: "sqlite", dataDir });
  try {
    for (const [id, sha] of acked.docs) {
      const doc = await store.getKnowledgeDoc(AGENT, id);
      expect(doc, `acknowledged ${id} is missing`).not.toBeNull();
      expect(sha256(doc!.content)).toBe(sha);
    }
    const all = await store.listKnowledgeDocs(AGENT, { limit: 100_000 });
    for (const doc of all) {
      const i = Number(doc.id.slice("doc-".length));
      expect(doc.content, `${doc.id} is not intact`).toBe(docContent(i));
      const hits = await store.searchKnowledge(AGENT, `marker${i}x`, 5);
      expect(hits.map((h) => h.id)).toEqual([doc.id]);
    }
    for (const [handle, { index, sha }] of acked.artifacts) {
      const got = await store.takeArtifact(handle, AGENT, CONVERSATION, Date.now());
      expect(got, `acknowledged ${handle} is missing`).not.toBeNull();
      expect(sha256(got!.bytes)).toBe(sha);
      expect(Buffer.compare(got!.bytes, artifactBytes(index))).toBe(0);
    }
    await store.putKnowledgeDoc({ ...all[0]!, id: "after-crash", content: "still writable" });
    expect((await store.searchKnowledge(AGENT, "writable", 5)).map((h) => h.id)).toEqual(["after-crash"]);
  } finally {
    await store.close();
  }
  const db = new DatabaseSync(join(dataDir, "airlock.db"));
  try {
    expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect(() =>
      db.exec("INSERT INTO knowledge_fts (knowledge_fts) VALUES ('integrity-check')"),
    ).not.toThrow();
    const docs = db.prepare("SELECT COUNT(*) AS n FROM knowledge_docs").get() as { n: number };
    const fts = db.prepare("SELECT COUNT(*) AS n FROM knowledge_fts").get() as { n: number };
    expect(fts.n).toBe(docs.n);
  } finally {
    db.close();
  }
}

function merge(into: Acks, acks: Acks): void {
  for (const [k, v] of acks.docs) into.docs.set(k, v);
  for (const [k, v] of acks.artifacts) into.artifacts.set(k, v);
}

describe("SIGKILL in the middle of a write burst (SQLite)", () => {
  it("keeps every acknowledged knowledge write and artifact put, and nothing half-written", async () => {
    const dataDir = join(root, "burst");
    const acked: Acks = { docs: new Map(), artifacts: new Map() };
    // Two crashes in a row: the second burst starts on a database recovered from the first.
    merge(acked, await burstAndKill(dataDir, 0, 201));
    merge(acked, await burstAndKill(dataDir, 100_000, 150));
    expect(acked.docs.size).toBeGreaterThan(150);
    await verify(dataDir, acked);
  }, 120_000);

  it("keeps both writers' acknowledged items when two processes share the file and both are killed", async () => {
    const dataDir = join(root, "shared");
    const acked: Acks = { docs: new Map(), artifacts: new Map() };
    const both = await Promise.all([burstAndKill(dataDir, 0, 150), burstAndKill(dataDir, 500_000, 150)]);
    for (const acks of both) merge(acked, acks);
    expect(acked.docs.size).toBeGreaterThanOrEqual(150);
    await verify(dataDir, acked);
  }, 120_000);
});
