// Scale-out end to end: three `airlock serve --store postgres://…` replicas (each its own data
// directory, one master key) behind a real nginx (round-robin, no stickiness), driven through
// nginx with the admin API and the MCP SDK client. Install on one, call through all; approve on
// another replica than the waiting one; enable on one and see the list change on an MCP client
// connected through nginx; SIGKILL a replica mid-burst; restart it and see it catch up; and a
// bounded loopback load test, 3 replicas through nginx against one replica directly.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { repeatUntilTold } from "../support/list-changes.ts";
import { PG_URL, probePostgres } from "../support/postgres.ts";
import {
  freePort,
  load,
  NGINX,
  type Nginx,
  openSetupHost,
  type Replica,
  replica,
  scalePluginTarball,
  startNginx,
} from "./scale-out-support.ts";

const pgProbe = await probePostgres();
const missing = !pgProbe.ok
  ? pgProbe.reason
  : NGINX === undefined
    ? "nginx is not installed (apt-get install nginx)"
    : null;
if (missing !== null && process.env.AIRLOCK_REQUIRE_NGINX === "1")
  throw new Error(`scale-out e2e: ${missing}`);
const suite = missing === null ? describe : describe.skip;

interface Outcome {
  callId: string;
  errorCode?: string;
  result: { content: Array<{ text?: string }> };
}

suite(
  `three replicas on one PostgreSQL behind nginx${missing === null ? "" : ` [skipped: ${missing}]`}`,
  () => {
    const schema = freshSchemaName("airlock_e2e");
    const masterKey = randomBytes(32).toString("base64");
    let root: string;
    let replicas: Replica[] = [];
    let nginx: Nginx;
    let operator = "";
    let agent = "";

    const api = async (base: string, method: string, path: string, body?: unknown, token = operator) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const call = async (base: string, tool: string, input: unknown, token = agent) => {
      const res = await api(base, "POST", "/api/instances/ada/calls", { tool, input }, token);
      return { status: res.status, out: res.json as unknown as Outcome & { error?: { code: string } } };
    };
    const r = (i: number) => replicas[i] as Replica;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "airlock-scale-"));
      const store = `${PG_URL}?schema=${schema}`;
      // Agent and tokens through the library API on the same store (a fourth, short-lived host).
      const setup = await openSetupHost(root, schema, masterKey);
      await setup.createAgent("ada");
      operator = (await setup.issueToken("operator", undefined, "e2e")).token;
      agent = (await setup.issueToken("agent", "ada", "e2e")).token;
      await setup.close();

      const proxyPort = await freePort();
      const ports = [await freePort(), await freePort(), await freePort()];
      replicas = ports.map((port, i) =>
        replica({
          id: `r${i + 1}`,
          port,
          dataDir: join(root, `r${i + 1}`),
          store,
          allowedHost: `127.0.0.1:${proxyPort}`,
          env: { AIRLOCK_MASTER_KEY: masterKey },
        }),
      );
      await Promise.all(replicas.map((x) => x.start()));
      nginx = await startNginx(join(root, "nginx"), proxyPort, ports);
    }, 60_000);
    afterAll(async () => {
      await nginx?.stop();
      await Promise.all(replicas.map((x) => x.stop()));
      await dropSchemas(PG_URL, [schema]);
      await rm(root, { recursive: true, force: true });
    }, 30_000);

    test("installs on one replica and calls through every replica and through nginx", async () => {
      const res = await fetch(`${r(0).url}/api/plugins?allowUnsigned=true&source=file:scale.tgz`, {
        method: "POST",
        headers: { authorization: `Bearer ${operator}`, "content-type": "application/octet-stream" },
        body: scalePluginTarball("scale"),
      });
      expect(res.status).toBe(201);
      const enabled = await api(nginx.url, "PATCH", "/api/instances/ada/tools", {
        enabled: { "scale:echo": true, "scale:spin": true, "scale:change": true },
      });
      expect(enabled.status).toBe(200);
      for (const x of replicas) {
        const { status, out } = await call(x.url, "scale:echo", { text: x.id });
        expect(status, x.log()).toBe(200);
        expect(out.errorCode).toBeUndefined();
        expect(out.result.content[0]?.text).toBe(`echo: ${x.id}`);
      }
      const through = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((n) => call(nginx.url, "scale:echo", { text: `n${n}` })),
      );
      expect(through.map((t) => t.out.errorCode ?? "ok")).toEqual(["ok", "ok", "ok", "ok", "ok", "ok"]);
      // And over MCP through nginx: any replica answers any request (stateless endpoint).
      const client = new Client({ name: "e2e", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${nginx.url}/mcp/ada`), {
          requestInit: { headers: { authorization: `Bearer ${agent}` } },
        }),
      );
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
        "scale__change",
        "scale__echo",
        "scale__spin",
      ]);
      for (let i = 0; i < 3; i++) {
        const result = (await client.callTool({ name: "scale__echo", arguments: { text: `mcp${i}` } })) as {
          content: Array<{ text: string }>;
        };
        expect(result.content[0]?.text).toBe(`echo: mcp${i}`);
      }
      await client.close();
    });

    test("approves on a third replica a call waiting on the first, listed on the second", async () => {
      const waiting = call(r(0).url, "scale:change", { text: "door" });
      let id = "";
      for (let i = 0; i < 200 && id === ""; i++) {
        const listed = await api(r(1).url, "GET", "/api/approvals?agent=ada");
        id = (listed.json.approvals as Array<{ id: string }>)[0]?.id ?? "";
        if (id === "") await new Promise((res) => setTimeout(res, 20));
      }
      expect(id).toMatch(/^apr_/);
      expect((await api(r(2).url, "POST", `/api/approvals/${id}`, { approve: true })).status).toBe(200);
      const { out } = await waiting;
      expect(out.errorCode).toBeUndefined();
      expect(out.result.content[0]?.text).toBe("changed door");
      // a second decision, on another replica, is refused naming the one that stands
      const again = await api(r(1).url, "POST", `/api/approvals/${id}`, { approve: false });
      expect(again.status).toBe(409);
      expect(again.json.error).toMatchObject({ code: "AIRLOCK_APPROVAL_ALREADY_DECIDED" });
      expect(JSON.stringify(again.json)).toContain("already approved");
    });

    test("enables a tool on one replica and an MCP client connected through nginx sees the list change", async () => {
      await api(nginx.url, "PATCH", "/api/instances/ada/tools", { enabled: { "scale:spin": false } });
      let changed: (() => void) | undefined;
      const client = new Client(
        { name: "e2e", version: "1.0.0" },
        // every notification told at once (the SDK waits 300 ms for more by default)
        { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => changed?.() } } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${nginx.url}/mcp/ada`), {
          requestInit: { headers: { authorization: `Bearer ${agent}` } },
        }),
      );
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("scale__spin");
      // until the client's notification stream is up, a change is told to no one
      await repeatUntilTold(
        () => api(nginx.url, "PATCH", "/api/instances/ada/tools", { enabled: { "scale:spin": false } }),
        new Promise<void>((resolve) => {
          changed = resolve;
        }),
      );
      // The client's notification stream landed on some replica; change the list on each replica in
      // turn, so at least two of the changes come from a replica the stream is not on.
      for (const [i, x] of replicas.entries()) {
        const next = new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no list change after enabling on ${x.id}`)), 5000);
          changed = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        await api(x.url, "PATCH", "/api/instances/ada/tools", { enabled: { "scale:spin": i % 2 === 0 } });
        await next;
      }
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("scale__spin");
      await client.close();
    });

    test("SIGKILL of a replica mid-burst: acknowledged calls are audited, in-flight ones fail with a clear code, the others keep serving", async () => {
      // An approval waiting on the replica that will die: abandoned, with a reason, not pending forever.
      const orphan = call(r(1).url, "scale:change", { text: "orphan" }).catch((error: unknown) => error);
      let orphanId = "";
      for (let i = 0; i < 200 && orphanId === ""; i++) {
        const listed = await api(r(0).url, "GET", "/api/approvals?agent=ada");
        orphanId = (listed.json.approvals as Array<{ id: string }>)[0]?.id ?? "";
        if (orphanId === "") await new Promise((res) => setTimeout(res, 20));
      }
      expect(orphanId).toMatch(/^apr_/);

      const burst = Array.from({ length: 45 }, (_, n) => call(nginx.url, "scale:spin", { ms: 20 + (n % 3) }));
      await new Promise((res) => setTimeout(res, 120));
      await r(1).stop("SIGKILL");
      const outcomes = await Promise.all(burst);
      const acknowledged = outcomes.filter((o) => o.status === 200);
      const lost = outcomes.filter((o) => o.status !== 200);
      process.stdout.write(
        `\n[scale-out SIGKILL] ${acknowledged.length} acknowledged, ${lost.length} lost in flight on r2\n`,
      );
      expect(acknowledged.every((o) => o.out.errorCode === undefined)).toBe(true);
      for (const o of lost) {
        expect(o.status).toBe(502);
        expect(o.out.error?.code).toBe("AIRLOCK_API_REPLICA_LOST");
      }
      expect(acknowledged.length).toBeGreaterThan(0);
      // Every acknowledged call is in the audit, whichever replica served it.
      const audit = await api(nginx.url, "GET", "/api/audit?agent=ada&kind=tool&limit=1000");
      const audited = new Set(
        (audit.json.entries as Array<{ details: { callId?: string } | null }>).map((e) => e.details?.callId),
      );
      expect(acknowledged.filter((o) => !audited.has(o.out.callId))).toEqual([]);
      // The two others keep serving, through nginx, with no error.
      const after = await Promise.all(
        Array.from({ length: 12 }, (_, n) => call(nginx.url, "scale:echo", { text: `after${n}` })),
      );
      expect(after.map((o) => `${o.status}${o.out.errorCode ?? ""}`)).toEqual(after.map(() => "200"));
      // The dead replica's approval is abandoned with a reason naming it.
      const db = new pg.Client({ connectionString: PG_URL });
      await db.connect();
      try {
        let row: { status: string; reason: string } | undefined;
        for (let i = 0; i < 200; i++) {
          row = (await db.query(`SELECT status, reason FROM "${schema}".approvals WHERE id = $1`, [orphanId]))
            .rows[0];
          if (row?.status !== "pending") break;
          await new Promise((res) => setTimeout(res, 50));
        }
        expect(row?.status).toBe("abandoned");
        expect(row?.reason).toMatch(/^replica r2 stopped answering/);
      } finally {
        await db.end();
      }
      expect(await orphan).toBeInstanceOf(Error); // its caller was connected to the dead process
      expect((await api(r(0).url, "GET", "/api/approvals")).json.approvals).toEqual([]);
    }, 30_000);

    test("a restarted replica catches up: it serves a plugin installed while it was down, from the store's bytes", async () => {
      const res = await fetch(`${nginx.url}/api/plugins?allowUnsigned=true&source=file:late.tgz`, {
        method: "POST",
        headers: { authorization: `Bearer ${operator}`, "content-type": "application/octet-stream" },
        body: scalePluginTarball("late"),
      });
      expect(res.status).toBe(201);
      await api(nginx.url, "PATCH", "/api/instances/ada/tools", { enabled: { "late:echo": true } });
      await r(1).start();
      const { status, out } = await call(r(1).url, "late:echo", { text: "caught up" });
      expect(status).toBe(200);
      expect(out.result.content[0]?.text).toBe("echo: caught up");
      expect((await api(r(1).url, "GET", "/readyz", undefined)).json).toEqual({
        status: "ready",
        replica: "r2",
      });
    }, 30_000);

    test("load: calls/s and p99 through nginx with 3 replicas against one replica directly (bounded, loopback)", async () => {
      const once = (base: string) => async () => {
        const { status, out } = await call(base, "scale:echo", { text: "load" });
        return status === 200 && out.errorCode === undefined;
      };
      const seconds = Number(process.env.AIRLOCK_SCALE_LOAD_SECONDS ?? 3);
      const concurrency = 24;
      const one = await load(once(r(0).url), concurrency, seconds);
      const three = await load(once(nginx.url), concurrency, seconds);
      const ratio = three.callsPerSecond / one.callsPerSecond;
      const line = (name: string, x: typeof one) =>
        `${name}: ${x.callsPerSecond.toFixed(0)} calls/s, p50 ${x.p50Ms.toFixed(1)} ms, p99 ${x.p99Ms.toFixed(1)} ms, ${x.calls} calls, ${x.errors} errors`;
      process.stdout.write(
        `\n[scale-out load, ${concurrency} concurrent, ${seconds} s each]\n  ${line("1 replica direct", one)}\n  ${line("3 replicas via nginx", three)}\n  scaling ratio: ${ratio.toFixed(2)}x\n`,
      );
      expect(one.errors).toBe(0);
      expect(three.errors).toBe(0);
      expect(three.calls).toBeGreaterThan(0);
    }, 60_000);
  },
);
