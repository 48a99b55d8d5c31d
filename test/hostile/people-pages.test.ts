// Attacks on the host's people pages (/approve/:id, /secrets/:ticket): forged or altered
// tickets, posts without or with a replayed form token, a token minted for another request, a
// cross-site Origin, a key the operator does not allow, an attempt to overwrite a secret that is
// set, an agent token on the approval page, and a hostile ctx.elicit form. Each refusal has its
// exact code, is audited, changes nothing, leaves the host healthy, and leaks no canary.
import { afterAll, beforeAll, expect, test } from "vitest";
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

test("a form token works once, and only for the ticket it was minted for", async () => {
  const first = `/secrets/${mintSecretTicket(fx.host, { agent: "alpha", keys: ["api_key"], tool: "loop__keyed" })}`;
  const second = `/secrets/${mintSecretTicket(fx.host, { agent: "alpha", keys: ["api_key"], tool: "loop__keyed" })}`;
  const token = await formToken(first);
  await refused(
    await post(second, { form_token: token, secret_api_key: CANARY }),
    403,
    "AIRLOCK_PAGE_FORM_INVALID",
  );
  // Consumed by the refused attempt above (bound to `first`, presented to `second`): gone.
  await refused(
    await post(first, { form_token: token, secret_api_key: CANARY }),
    403,
    "AIRLOCK_PAGE_FORM_INVALID",
  );
  const fresh = await formToken(first);
  const saved = await post(first, { form_token: fresh, secret_api_key: "first-value" });
  expect(saved.status).toBe(200);
  expect(await saved.text()).not.toContain("first-value");
  await refused(
    await post(first, { form_token: fresh, secret_api_key: CANARY }),
    403,
    "AIRLOCK_PAGE_FORM_INVALID",
  );
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

test("the approval page decides nothing without an operator token, and an unknown approval is not found", async () => {
  await fx.host.setPeoplePolicy("alpha", { approval: "operator" });
  const session = await connect("sdk v2, 2025-11-25", fx, { elicitation: false });
  const waiting = new Promise<string>((resolve) => {
    const off = fx.host.on("permission.required", (event) => {
      off();
      resolve(event.approvalId);
    });
  });
  const call = session.call("loop__write", { note: CANARY });
  const id = await waiting;
  const path = `/approve/${id}`;
  await refused(
    await post(path, { decision: "approve", operator_token: fx.operatorToken }),
    403,
    "AIRLOCK_PAGE_FORM_INVALID",
  );
  await refused(
    await post(path, {
      form_token: await formToken(path),
      decision: "approve",
      operator_token: fx.agentToken,
    }),
    403,
    "AIRLOCK_PAGE_FORBIDDEN",
  );
  expect((await fx.host.listApprovals("alpha")).map((a) => a.id)).toEqual([id]);
  await refused(
    await fetch(`${fx.server.url}/approve/apr_00000000-0000-0000-0000-000000000000`),
    404,
    "AIRLOCK_PAGE_NOT_FOUND",
  );
  const denied = await post(path, {
    form_token: await formToken(path),
    decision: "deny",
    reason: "<script>x</script>",
    operator_token: fx.operatorToken,
  });
  expect(denied.status).toBe(200);
  expect(text(await call)).toBe("The call was not approved: <script>x</script>");
  await refused(await fetch(`${fx.server.url}${path}`), 404, "AIRLOCK_PAGE_NOT_FOUND");
  await session.close();
  expect((await fetch(`${fx.server.url}/healthz`)).status).toBe(200);
});

test("a page escapes what it shows (tool input with markup)", async () => {
  await fx.host.setPeoplePolicy("alpha", { approval: "operator" });
  const session = await connect("sdk v2, 2025-11-25", fx, { elicitation: false });
  const waiting = new Promise<string>((resolve) => {
    const off = fx.host.on("permission.required", (event) => {
      off();
      resolve(event.approvalId);
    });
  });
  const call = session.call("loop__write", { note: '<img src=x onerror="alert(1)">' });
  const id = await waiting;
  const page = await (await fetch(`${fx.server.url}/approve/${id}`)).text();
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
