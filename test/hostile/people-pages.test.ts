// Attacks on the host's people pages (/approve/:id, /secrets/:ticket): forged or altered
// tickets, posts without a form token or with one sealed for another request, a cross-site
// Origin, a key the operator does not allow, a replayed form that would overwrite a secret that
// is set, an agent token or a revoked operator's sign-in on the approval page, the call's input
// read before any operator signs in, and a flood of anonymous visits (which once stored a form
// token per visit until the pages broke). Each refusal has its exact code, is audited, changes
// nothing, leaves the host healthy, and leaks no canary.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { testStore } from "../../host/src/state/store/test-store.ts";
import { mintSecretTicket } from "../../host/src/surfaces/http/people/tickets.ts";
import { connect, type LoopFixture, startLoopHost, text } from "../e2e/people/support.ts";

let fx: LoopFixture;
beforeAll(async () => {
  fx = await startLoopHost();
  await fx.host.setPeoplePolicy("alpha", { askSecrets: ["api_key"] });
});
afterAll(async () => {
  await fx.close();
});

const CANARY = "HOSTILE-CANARY-93f1c2";

async function formToken(path: string): Promise<string> {
  const page = await (await fetch(`${fx.server.url}${path}`)).text();
  const token = /name="form_token" value="([^"]+)"/.exec(page)?.[1];
  if (token === undefined) throw new Error(`no form token on ${path}: ${page.slice(0, 300)}`);
  return token;
}

function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${fx.server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

async function refused(response: Response, status: number, code: string): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get("x-airlock-error")).toBe(code);
  const body = await response.text();
  expect(body).toContain(code);
  expect(body).not.toContain(CANARY);
}

async function secretSet(): Promise<boolean> {
  return (await fx.host.listSecrets("alpha")).some((s) => s.key === "api_key" && s.set);
}

async function healthyAndClean(): Promise<void> {
  expect((await fetch(`${fx.server.url}/healthz`)).status).toBe(200);
  expect(JSON.stringify(await fx.host.queryAudit({ limit: 1000 }))).not.toContain(CANARY);
}

test("a forged or altered ticket opens nothing", async () => {
  const ticket = mintSecretTicket(fx.host, { agent: "alpha", keys: ["api_key"], tool: "loop__keyed" });
  const altered = `${ticket.slice(0, -4)}${ticket.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
  await refused(await fetch(`${fx.server.url}/secrets/${altered}`), 404, "AIRLOCK_PAGE_NOT_FOUND");
  await refused(
    await post(`/secrets/not-a-ticket`, { secret_api_key: CANARY }),
    404,
    "AIRLOCK_PAGE_NOT_FOUND",
  );
  expect(await secretSet()).toBe(false);
  const rows = await fx.host.queryAudit({ kind: "admin", limit: 20 });
  expect(rows.find((r) => r.action === "page.secrets")).toMatchObject({
    allowed: false,
    error: "AIRLOCK_PAGE_NOT_FOUND",
  });
  await healthyAndClean();
});

test("a post without the page's form token, or from another site, is refused and sets nothing", async () => {
  const path = `/secrets/${mintSecretTicket(fx.host, { agent: "alpha", keys: ["api_key"], tool: "loop__keyed" })}`;
  await refused(await post(path, { secret_api_key: CANARY }), 403, "AIRLOCK_PAGE_FORM_INVALID");
  const token = await formToken(path);
  // The server's own guard refuses a foreign Origin before the page does (the page checks again).
  const foreign = await post(
    path,
    { form_token: token, secret_api_key: CANARY },
    { origin: "https://evil.example" },
  );
  expect(foreign.status).toBe(403);
  expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe(
    "AIRLOCK_API_HOST_NOT_ALLOWED",
  );
  expect(await secretSet()).toBe(false);
  await healthyAndClean();
});

test("a form token works only for the ticket it was sealed for; a replayed form overwrites nothing", async () => {
  const first = `/secrets/${mintSecretTicket(fx.host, { agent: "alpha", keys: ["api_key"], tool: "loop__keyed" })}`;
  const second = `/secrets/${mintSecretTicket(fx.host, { agent: "alpha", keys: ["api_key"], tool: "loop__keyed" })}`;
  const token = await formToken(first);
  await refused(
    await post(second, { form_token: token, secret_api_key: CANARY }),
    403,
    "AIRLOCK_PAGE_FORM_INVALID",
  );
  await refused(
    await post(first, { form_token: `${token.slice(0, -2)}AA`, secret_api_key: CANARY }),
    403,
    "AIRLOCK_PAGE_FORM_INVALID",
  );
  expect(await secretSet()).toBe(false);
  await healthyAndClean();
  const saved = await post(first, { form_token: token, secret_api_key: "first-value" });
  expect(saved.status).toBe(200);
  expect(await saved.text()).not.toContain("first-value");
  // The same form again: the key is set now, so nothing is written over it.
  const replay = await post(first, { form_token: token, secret_api_key: CANARY });
  expect(replay.status).toBe(200);
  expect(await replay.text()).toContain("Nothing to enter");
  const session = await connect("sdk v2, 2025-11-25", fx);
  expect(text(await session.call("loop__keyed", {}))).toBe(`key of ${"first-value".length} characters`);
  await session.close();
  await fx.host.deleteSecret("alpha", "api_key");
  await healthyAndClean();
});

test("the page never overwrites a secret that is set, and refuses a key the operator no longer allows", async () => {
  const path = `/secrets/${mintSecretTicket(fx.host, { agent: "alpha", keys: ["api_key"], tool: "loop__keyed" })}`;
  const token = await formToken(path);
  await fx.host.setSecrets("alpha", { api_key: "set-by-the-operator" });
  const answer = await post(path, { form_token: token, secret_api_key: CANARY });
  expect(answer.status).toBe(200);
  const session = await connect("sdk v2, 2025-11-25", fx);
  expect(text(await session.call("loop__keyed", {}))).toBe(
    `key of ${"set-by-the-operator".length} characters`,
  );
  await session.close();
  await fx.host.deleteSecret("alpha", "api_key");
  const again = await formToken(path);
  await fx.host.setPeoplePolicy("alpha", { askSecrets: [] });
  await refused(
    await post(path, { form_token: again, secret_api_key: CANARY }),
    403,
    "AIRLOCK_PAGE_SECRET_NOT_ALLOWED",
  );
  await refused(await fetch(`${fx.server.url}${path}`), 403, "AIRLOCK_PAGE_SECRET_NOT_ALLOWED");
  expect(await secretSet()).toBe(false);
  await fx.host.setPeoplePolicy("alpha", { askSecrets: ["api_key"] });
  await healthyAndClean();
});

/** A call of loop:write waiting for an operator (policy operator, a client without elicitation). */
async function pendingWrite(note: string) {
  await fx.host.setPeoplePolicy("alpha", { approval: "operator" });
  const session = await connect("sdk v2, 2025-11-25", fx, { elicitation: false });
  const waiting = new Promise<string>((resolve) => {
    const off = fx.host.on("permission.required", (event) => {
      off();
      resolve(event.approvalId);
    });
  });
  const call = session.call("loop__write", { note });
  const id = await waiting;
  return { id, path: `/approve/${id}`, call, session };
}

/** Signs in on the approval page: the answer's text and the decision form's (operator-bound) token. */
async function signInOnPage(path: string, operatorToken: string) {
  const answer = await post(path, { form_token: await formToken(path), operator_token: operatorToken });
  const body = await answer.text();
  const token = /name="form_token" value="([^"]+)"/.exec(body)?.[1] ?? "";
  return { status: answer.status, body, token };
}

const INPUT = "the-pending-input-5e1d";

test("the approval page decides nothing without an operator token, and an unknown approval is not found", async () => {
  const { id, path, call, session } = await pendingWrite(INPUT);
  await refused(
    await post(path, { decision: "approve", operator_token: fx.operatorToken }),
    403,
    "AIRLOCK_PAGE_FORM_INVALID",
  );
  await healthyAndClean();
  for (const operator_token of [fx.agentToken, `alk_op_${CANARY}`]) {
    const answer = await post(path, {
      form_token: await formToken(path),
      decision: "approve",
      operator_token,
    });
    expect(await answer.clone().text()).not.toContain(INPUT);
    await refused(answer, 403, "AIRLOCK_PAGE_FORBIDDEN");
    await healthyAndClean();
  }
  await refused(
    await post(path, {
      form_token: await formToken(path),
      decision: "maybe",
      operator_token: fx.operatorToken,
    }),
    403,
    "AIRLOCK_PAGE_FORM_INVALID",
  );
  expect((await fx.host.listApprovals("alpha")).map((a) => a.id)).toEqual([id]);
  await refused(
    await fetch(`${fx.server.url}/approve/apr_00000000-0000-0000-0000-000000000000`),
    404,
    "AIRLOCK_PAGE_NOT_FOUND",
  );
  await healthyAndClean();
  const denied = await post(path, {
    form_token: await formToken(path),
    decision: "deny",
    reason: "<script>x</script>",
    operator_token: fx.operatorToken,
  });
  expect(denied.status).toBe(200);
  expect(text(await call)).toBe("The call was not approved: <script>x</script>");
  await refused(await fetch(`${fx.server.url}${path}`), 404, "AIRLOCK_PAGE_NOT_FOUND");
  const rows = await fx.host.queryAudit({ kind: "admin", limit: 50 });
  expect(rows.filter((r) => r.action === "page.approve").map((r) => r.error)).toEqual(
    expect.arrayContaining(["AIRLOCK_PAGE_FORM_INVALID", "AIRLOCK_PAGE_FORBIDDEN", "AIRLOCK_PAGE_NOT_FOUND"]),
  );
  await session.close();
  await healthyAndClean();
});

test("the call's input is shown only once an operator signs in, and a revoked operator's sign-in decides nothing", async () => {
  const { id, path, call, session } = await pendingWrite(INPUT);
  const anonymous = await (await fetch(`${fx.server.url}${path}`)).text();
  expect(anonymous).toContain("loop:write");
  expect(anonymous).toContain("Sign in");
  expect(anonymous).not.toContain(INPUT);
  expect(anonymous).not.toContain('name="decision"');
  // A form token of the anonymous page decides nothing by itself: an operator must sign in.
  const noOne = await post(path, { form_token: await formToken(path), decision: "approve" });
  expect(await noOne.clone().text()).not.toContain(INPUT);
  await refused(noOne, 403, "AIRLOCK_PAGE_FORBIDDEN");
  await healthyAndClean();

  const leaving = await fx.host.issueToken("operator", undefined, "an operator who leaves");
  const signedIn = await signInOnPage(path, leaving.token);
  expect(signedIn.status).toBe(200);
  expect(signedIn.body).toContain(INPUT);
  expect(signedIn.body).toContain('name="decision"');
  expect(signedIn.body).not.toContain(leaving.token);
  expect(signedIn.body).not.toContain('name="operator_token"');
  const [seen] = (await fx.host.queryAudit({ kind: "admin", limit: 20 })).filter(
    (r) => r.action === "page.approve.sign_in",
  );
  expect(seen).toMatchObject({
    success: true,
    agent: "alpha",
    details: { approvalId: id, tokenId: leaving.id },
  });
  await fx.host.revokeToken(leaving.id);
  await refused(
    await post(path, { form_token: signedIn.token, decision: "approve" }),
    403,
    "AIRLOCK_PAGE_FORBIDDEN",
  );
  expect((await fx.host.listApprovals("alpha")).map((a) => a.id)).toEqual([id]);
  await healthyAndClean();

  const staying = await signInOnPage(path, fx.operatorToken);
  const approved = await post(path, { form_token: staying.token, decision: "approve" });
  expect(approved.status).toBe(200);
  expect(await approved.text()).toContain("Approved");
  expect(text(await call)).toBe(`written: ${INPUT}`);
  await session.close();
  await healthyAndClean();
});

test("a page escapes what it shows (tool input with markup)", async () => {
  const { id, path, call, session } = await pendingWrite('<img src=x onerror="alert(1)">');
  const page = (await signInOnPage(path, fx.operatorToken)).body;
  expect(page).not.toContain("<img");
  expect(page).toContain("&lt;img src=x onerror=");
  await fx.host.decideApproval(id, { approve: false });
  await call;
  await session.close();
});

test("without the server's host guard the page itself refuses a cross-site post", async () => {
  const { createAdminApi } = await import("../../host/src/surfaces/http/app.ts");
  const app = createAdminApi(fx.host, { log: () => undefined });
  const path = `/secrets/${mintSecretTicket(fx.host, { agent: "alpha", keys: ["api_key"], tool: "loop__keyed" })}`;
  const page = await (await app.request(`http://127.0.0.1${path}`)).text();
  const token = /name="form_token" value="([^"]+)"/.exec(page)?.[1] ?? "";
  const response = await app.request(`http://127.0.0.1${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
    body: new URLSearchParams({ form_token: token, secret_api_key: CANARY }).toString(),
  });
  await refused(response, 403, "AIRLOCK_PAGE_FORM_INVALID");
  expect(await secretSet()).toBe(false);
  await healthyAndClean();
});

/** Rows in every table of the host's store (SQLite files: the store and its audit file). */
async function storedRows(): Promise<number> {
  const store = testStore(fx.dataDir);
  if (store.kind === "postgres") {
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      const { rows: tables } = await client.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE schemaname = $1",
        [store.schema],
      );
      let rows = 0;
      for (const { name } of tables) {
        const { rows: counted } = await client.query<{ n: string }>(
          `SELECT count(*) AS n FROM "${store.schema}"."${name}"`,
        );
        rows += Number(counted[0]?.n);
      }
      return rows;
    } finally {
      await client.end();
    }
  }
  let rows = 0;
  for (const file of readdirSync(fx.dataDir).filter((f) => f.endsWith(".db"))) {
    const db = new DatabaseSync(join(fx.dataDir, file), { readOnly: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
        name: string;
      }>;
      for (const { name } of tables) {
        rows += Number((db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n);
      }
    } finally {
      db.close();
    }
  }
  return rows;
}

const VISITS = 10_050;

test(
  "10,050 anonymous visits of an approval and a secret page store nothing, and the pages keep working",
  {
    timeout: 120_000,
  },
  async () => {
    // In-process (app.request), sockets left out: the point is what a visit stores, not the network.
    const { createAdminApi } = await import("../../host/src/surfaces/http/app.ts");
    const app = createAdminApi(fx.host, { log: () => undefined });
    const url = (path: string) => `http://127.0.0.1${path}`;
    const form = (path: string, fields: Record<string, string>) =>
      app.request(url(path), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      });
    const tokenOf = (html: string) => /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? "";
    await fx.host.setPeoplePolicy("alpha", { approval: "operator" });
    const waiting = new Promise<string>((resolve) => {
      const off = fx.host.on("permission.required", (event) => {
        off();
        resolve(event.approvalId);
      });
    });
    const call = fx.host.callTool("alpha", "loop:write", { note: INPUT });
    const approval = `/approve/${await waiting}`;
    const secrets = `/secrets/${mintSecretTicket(fx.host, { agent: "alpha", keys: ["api_key"], tool: "loop__keyed" })}`;
    const before = await storedRows();
    for (let i = 0; i < VISITS; i++) {
      const res = await app.request(url(i % 2 === 0 ? approval : secrets));
      if (res.status !== 200) throw new Error(`visit ${i}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    expect(await storedRows()).toBe(before);
    expect((await app.request("/healthz")).status).toBe(200);
    // The pages still work for the people they are for.
    const secretForm = tokenOf(await (await app.request(url(secrets))).text());
    expect((await form(secrets, { form_token: secretForm, secret_api_key: "after-the-flood" })).status).toBe(
      200,
    );
    expect(await secretSet()).toBe(true);
    const signIn = tokenOf(await (await app.request(url(approval))).text());
    const signedIn = await form(approval, { form_token: signIn, operator_token: fx.operatorToken });
    const decide = tokenOf(await signedIn.text());
    expect((await form(approval, { form_token: decide, decision: "approve" })).status).toBe(200);
    expect((await call).result.content).toEqual([{ type: "text", text: `written: ${INPUT}` }]);
    await fx.host.deleteSecret("alpha", "api_key");
    expect((await app.request("/healthz")).status).toBe(200);
    expect(JSON.stringify(await fx.host.queryAudit({ limit: 1000 }))).not.toContain(CANARY);
  },
);
