// PostgreSQL gone for 10 s under load, with two real replicas (`airlock serve --store
// postgres://…` processes), each reaching the database through a TCP proxy this test owns and
// cuts (the shared server stays up for every other suite). Clients call both replicas in a
// closed loop the whole time. While the proxy is cut: no replica process exits, and every answer
// is an answer — a result, or 503 AIRLOCK_STORE_UNAVAILABLE with Retry-After (never a reset
// connection, never a 500). Once it is back, both replicas serve again by themselves, and every
// call acknowledged as successful has its audit row.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore } from "../../host/src/state/store/index.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import {
  freePort,
  openSetupHost,
  type Replica,
  replica,
  scalePluginTarball,
} from "../e2e/scale-out-support.ts";
import { type PgProxy, pgProxy } from "../support/pg-proxy.ts";
import { describePg, PG_URL } from "../support/postgres.ts";

const OUTAGE_MS = 10_000;

interface Answer {
  replica: number;
  phase: "before" | "outage" | "after";
  status: number | "reset";
  code: string | null;
  retryAfter: string | null;
  callId: string | null;
}

describePg("two replicas under load while PostgreSQL is gone for 10 s", () => {
  const schema = freshSchemaName();
  const masterKey = randomBytes(32).toString("base64");
  let root: string;
  let proxy: PgProxy;
  let replicas: Replica[] = [];
  let agent = "";

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "airlock-outage-replicas-"));
    proxy = await pgProxy();
    const setup = await openSetupHost(root, schema, masterKey);
    await setup.plugins.installTarball(scalePluginTarball("loadkit"), "/tmp/loadkit.tgz", {
      allowUnsigned: true,
    });
    await setup.createAgent("ada");
    await setup.setToolsEnabled("ada", { "loadkit:echo": true });
    agent = (await setup.issueToken("agent", "ada", "outage")).token;
    await setup.close();
    const proxied = new URL(proxy.url);
    proxied.searchParams.set("schema", schema);
    replicas = [];
    for (const id of ["o1", "o2"]) {
      const port = await freePort();
      replicas.push(
        replica({
          id,
          port,
          dataDir: join(root, id),
          store: proxied.toString(),
          allowedHost: `127.0.0.1:${port}`,
          env: { AIRLOCK_MASTER_KEY: masterKey },
        }),
      );
    }
    await Promise.all(replicas.map((r) => r.start()));
  }, 90_000);
  afterAll(async () => {
    proxy?.restore();
    await Promise.all(replicas.map((r) => r.stop()));
    await proxy?.close();
    await dropSchemas(PG_URL, [schema]);
    await rm(root, { recursive: true, force: true });
  }, 60_000);

  it("no replica exits, clients get AIRLOCK_STORE_UNAVAILABLE, and both resume by themselves", async () => {
    let phase: Answer["phase"] = "before";
    let running = true;
    const answers: Answer[] = [];
    const callOnce = async (index: number, n: number) => {
      const r = replicas[index] as Replica;
      const at = phase;
      try {
        const res = await fetch(`${r.url}/api/instances/ada/calls`, {
          method: "POST",
          headers: { authorization: `Bearer ${agent}`, "content-type": "application/json" },
          body: JSON.stringify({ tool: "loadkit:echo", input: { text: `c${index}-${n}` } }),
        });
        const json = (await res.json()) as { callId?: string; errorCode?: string; error?: { code?: string } };
        answers.push({
          replica: index,
          phase: at,
          status: res.status,
          code: json.error?.code ?? json.errorCode ?? null,
          retryAfter: res.headers.get("retry-after"),
          callId: res.status === 200 && json.errorCode === undefined ? (json.callId ?? null) : null,
        });
      } catch {
        answers.push({
          replica: index,
          phase: at,
          status: "reset",
          code: null,
          retryAfter: null,
          callId: null,
        });
      }
    };
    // Two closed-loop clients per replica, paced a little so the machine stays responsive.
    const clients = [0, 0, 1, 1].map(async (index) => {
      for (let n = 0; running; n++) {
        await callOnce(index, n);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    const seen = async (check: () => boolean, what: string, ms = 60_000) => {
      const end = Date.now() + ms;
      while (!check()) {
        if (Date.now() > end)
          throw new Error(`${what}: not within ${ms} ms\n${replicas.map((r) => r.log()).join("\n")}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const served = (p: Answer["phase"], i: number) => () =>
      answers.some((a) => a.phase === p && a.replica === i && a.callId !== null);
    try {
      await seen(
        () => served("before", 0)() && served("before", 1)(),
        "both replicas serving before the outage",
      );
      phase = "outage";
      proxy.cut();
      await new Promise((r) => setTimeout(r, OUTAGE_MS)); // the outage itself, not a wait for something
      for (const r of replicas) expect(r.exit(), `${r.id} exited during the outage\n${r.log()}`).toBeNull();
      proxy.restore();
      phase = "after";
      await seen(() => served("after", 0)() && served("after", 1)(), "both replicas serving again");
      // and they keep serving: the next calls on both replicas all succeed
      const mark = answers.length;
      await seen(
        () =>
          [0, 1].every(
            (i) => answers.slice(mark).filter((a) => a.replica === i && a.callId !== null).length >= 10,
          ),
        "ten more calls served on each replica",
      );
      const since = answers.slice(mark);
      expect(since.filter((a) => a.callId === null)).toEqual([]);
    } finally {
      running = false;
      proxy.restore();
      await Promise.all(clients);
    }

    for (const r of replicas) expect(r.exit(), `${r.id} exited\n${r.log()}`).toBeNull();
    // No answer was lost: every request was answered over HTTP.
    expect(answers.filter((a) => a.status === "reset")).toEqual([]);
    // During the outage, a failure is the retryable store code (503, Retry-After), never a 500.
    const outage = answers.filter((a) => a.phase === "outage");
    const failed = outage.filter((a) => a.callId === null);
    expect(failed.length).toBeGreaterThan(0);
    const kinds = new Set(failed.map((a) => `${a.status} ${a.code} retry-after=${a.retryAfter !== null}`));
    expect([...kinds]).toEqual(["503 AIRLOCK_STORE_UNAVAILABLE retry-after=true"]);
    process.stdout.write(
      `\n[outage] ${answers.length} calls; during the 10 s outage ${outage.length} answered, ${failed.length} with AIRLOCK_STORE_UNAVAILABLE\n`,
    );
    // Every call acknowledged as successful has its audit row (none acknowledged and lost).
    const store = await openStore({ kind: "postgres", url: PG_URL, schema });
    try {
      const audited = new Set(
        (await store.queryAudit({ agent: "ada", kind: "tool", limit: 100_000 })).map(
          (r) => r.details?.callId,
        ),
      );
      const acknowledged = answers.filter((a) => a.callId !== null).map((a) => a.callId);
      expect(acknowledged.filter((id) => !audited.has(id))).toEqual([]);
    } finally {
      await store.close();
    }
  }, 240_000);
});
