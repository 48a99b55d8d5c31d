// Several host processes sharing PostgreSQL: the test process puts artifacts, four child
// processes (each its own pool) race to take all of them at once; every artifact is taken
// by exactly one process, with its bytes intact.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, expect, it } from "vitest";
import { openStore } from "../../host/src/state/store/index.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { describePg, PG_URL } from "../support/postgres.ts";
import { artifactBytes, sha256 } from "./burst-fixtures.ts";

const schema = freshSchemaName();
afterAll(() => dropSchemas(PG_URL, [schema]));

function startTaker() {
  const child = spawn(process.execPath, [join(import.meta.dirname, "pg-taker-child.ts"), PG_URL, schema], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  // Listen for the exit now: a child that finishes before the test awaits it must not be missed.
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error(`taker exited early: ${stderr}`);
    return r.value;
  };
  return { child, next, exited };
}

describePg("artifacts across processes sharing PostgreSQL", () => {
  it("hands each artifact to exactly one of several racing processes", async () => {
    const store = await openStore({ kind: "postgres", url: PG_URL, schema });
    const caps = {
      maxBytesPerArtifact: 1e6,
      maxCountPerBinding: 100,
      maxBytesPerBinding: 1e8,
      maxCountGlobal: 100,
      maxBytesGlobal: 1e8,
    };
    const expected = new Map<string, string>();
    try {
      for (let i = 0; i < 20; i++) {
        const bytes = artifactBytes(i);
        const handle = `h${i}`;
        const put = await store.putArtifact(
          {
            handle,
            agent: "a",
            conversationId: "c",
            filename: "f",
            mime: "a/b",
            bytes,
            expiresAt: Date.now() + 600_000,
          },
          caps,
          Date.now(),
        );
        expect(put).toEqual({ ok: true });
        expected.set(handle, sha256(bytes));
      }
    } finally {
      await store.close();
    }
    const takers = Array.from({ length: 4 }, startTaker);
    for (const t of takers) expect(await t.next()).toBe("READY");
    const handles = JSON.stringify([...expected.keys()]);
    for (const t of takers) t.child.stdin.write(`${handles}\n`);
    const taken: Array<[string, string]> = [];
    for (const t of takers) {
      for (let line = await t.next(); line !== "DONE"; line = await t.next()) {
        const [, handle, sha] = line.split(" ");
        taken.push([handle!, sha!]);
      }
    }
    await Promise.all(takers.map((t) => t.exited));
    expect(taken.map(([h]) => h).sort()).toEqual([...expected.keys()].sort());
    for (const [h, sha] of taken) expect(sha).toBe(expected.get(h));
  }, 60_000);
});
