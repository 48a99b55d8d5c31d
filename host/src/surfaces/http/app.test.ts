// The admin API's routes driven in-process (app.request) against a real host: SQLite store in
// a temp dir, in-process sandbox, the kit fixture plugin.
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAdminApi } from "./app.ts";
import { createSurfaceFixture, type SurfaceFixture } from "./test-support.ts";

let f: SurfaceFixture;
let app: Hono;

async function api(method: string, path: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await app.request(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === "" ? null : (JSON.parse(text) as Record<string, unknown>) };
}

beforeAll(async () => {
  f = await createSurfaceFixture();
  app = createAdminApi(f.host, { mcp: false, log: () => undefined });
});
afterAll(async () => {
  await f.close();
});

describe("catalogue and enablement", () => {
  test("lists the catalogue with description, category and requiredSecrets for an operator", async () => {
    const res = await api("GET", "/api/tools", f.operatorToken);
    expect(res.status).toBe(200);
    const tools = res.json?.tools as Array<Record<string, unknown>>;
    const keyed = tools.find((t) => t.id === "kit:keyed");
    expect(keyed).toMatchObject({
      category: "utilities",
      description: "Needs an API key; says whether it has one.",
    });
    expect(keyed?.requiredSecrets).toEqual([
      { key: "api_key", type: "text", optional: false, sensitive: true },
    ]);
    expect(tools.map((t) => t.id)).not.toContain("kit:roll_dice");
  });

  test("shows an agent its own tools and refuses it another agent's", async () => {
    const own = await api("GET", "/api/instances/alpha/tools", f.agentToken);
    expect(own.status).toBe(200);
    const echo = (own.json?.tools as Array<Record<string, unknown>>).find((t) => t.id === "kit:echo");
    expect(echo).toMatchObject({ enabled: true, served: true });
    // Another agent's slug is, to an agent token, an unknown agent (whether it exists is not said).
    const other = await api("GET", "/api/instances/beta/tools", f.agentToken);
    expect(other.status).toBe(404);
    expect(other.json).toMatchObject({ error: { code: "AIRLOCK_API_UNKNOWN_AGENT" } });
  });

  test("refuses an agent token on operator routes", async () => {
    for (const path of [
      "/api/tools",
      "/api/instances",
      "/api/plugins",
      "/api/audit",
      "/api/audit/export?format=csv",
      "/api/approvals",
    ]) {
      const res = await api("GET", path, f.agentToken);
      expect(res.status, path).toBe(403);
      expect(res.json).toMatchObject({ error: { code: "AIRLOCK_API_FORBIDDEN" } });
    }
  });

  test("enables tools by canonical or wire name and reports missing secrets", async () => {
    const res = await api("PATCH", "/api/instances/beta/tools", f.operatorToken, {
      enabled: { "kit:echo": true, kit__keyed: true },
    });
    expect(res.status).toBe(200);
    const tools = res.json?.tools as Array<Record<string, unknown>>;
    expect(tools.find((t) => t.id === "kit:echo")).toMatchObject({ enabled: true, served: true });
    expect(tools.find((t) => t.id === "kit:keyed")).toMatchObject({
      enabled: true,
      served: false,
      missingSecrets: ["api_key"],
    });
  });

  test("returns presentations by tool id", async () => {
    const res = await api("GET", "/api/presentations", f.operatorToken);
    expect(res.status).toBe(200);
    expect(res.json?.presentations).toMatchObject({
      "kit:echo": { label: "Echo", icon: "repeat", tone: "info" },
    });
  });
});

describe("agents, secrets and knowledge", () => {
  test("creates an agent and returns its token once, which then works on its own routes", async () => {
    const created = await api("POST", "/api/instances", f.operatorToken, { slug: "gamma", token: true });
    expect(created.status).toBe(201);
    const token = (created.json?.token as { token: string }).token;
    expect(token).toMatch(/^alk_ag_/);
    expect((await api("GET", "/api/instances/gamma/tools", token)).status).toBe(200);
    const again = await api("POST", "/api/instances", f.operatorToken, { slug: "gamma" });
    expect(again.status).toBe(200);
    const list = await api("GET", "/api/instances", f.operatorToken);
    expect((list.json?.agents as Array<{ slug: string }>).map((a) => a.slug)).toContain("gamma");
  });

  test("sets, masks and deletes a sensitive secret without ever returning its value", async () => {
    const value = "sk-live-0123456789abcdef";
    const put = await api("PUT", "/api/instances/beta/secrets", f.operatorToken, {
      values: { api_key: value },
    });
    expect(put.status).toBe(200);
    const listed = await api("GET", "/api/instances/beta/secrets", f.operatorToken);
    expect(JSON.stringify(listed.json)).not.toContain(value);
    expect(listed.json?.secrets).toEqual([
      expect.objectContaining({ key: "api_key", set: true, sensitive: true, tools: ["kit:keyed"] }),
    ]);
    const served = await api("GET", "/api/instances/beta/tools", f.operatorToken);
    expect(
      (served.json?.tools as Array<Record<string, unknown>>).find((t) => t.id === "kit:keyed"),
    ).toMatchObject({
      served: true,
    });
    const del = await api("DELETE", "/api/instances/beta/secrets/api_key", f.operatorToken);
    expect(del.json).toEqual({ key: "api_key", deleted: true });
    const again = await api("DELETE", "/api/instances/beta/secrets/api_key", f.operatorToken);
    expect(again.json).toEqual({ key: "api_key", deleted: false });
  });

  test("reads and sets the knowledge level", async () => {
    expect((await api("GET", "/api/instances/beta/knowledge", f.operatorToken)).json).toEqual({
      level: "read",
    });
    const put = await api("PUT", "/api/instances/beta/knowledge", f.operatorToken, { level: "manage" });
    expect(put.json).toEqual({ level: "manage" });
    expect((await api("GET", "/api/instances/beta/knowledge", f.operatorToken)).json).toEqual({
      level: "manage",
    });
  });

  test("answers 404 AIRLOCK_API_UNKNOWN_AGENT for an operator naming a missing agent", async () => {
    const res = await api("GET", "/api/instances/nobody/secrets", f.operatorToken);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: { code: "AIRLOCK_API_UNKNOWN_AGENT" } });
  });
});

describe("calls, approvals and audit", () => {
  test("calls a tool with an agent token and returns the outcome", async () => {
    const res = await api("POST", "/api/instances/alpha/calls", f.agentToken, {
      tool: "kit:echo",
      input: { text: "hi" },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      toolName: "kit:echo",
      blocked: false,
      result: { content: [{ type: "text", text: "echo: hi" }] },
    });
  });

  test("returns a failing tool as a 200 outcome with isError", async () => {
    const res = await api("POST", "/api/instances/alpha/calls", f.agentToken, {
      tool: "kit__fail",
      input: {},
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      result: { isError: true, content: [{ text: "the fail tool always fails" }] },
    });
  });

  test("returns the host's code for invalid tool input as an error outcome", async () => {
    const res = await api("POST", "/api/instances/alpha/calls", f.agentToken, {
      tool: "kit:echo",
      input: { text: 5 },
    });
    expect(res.status).toBe(200);
    expect(res.json?.errorCode).toBe("AIRLOCK_TOOL_INPUT_INVALID");
    expect((res.json?.result as { isError: boolean }).isError).toBe(true);
  });

  test("refuses autoApprove from an agent token", async () => {
    const res = await api("POST", "/api/instances/alpha/calls", f.agentToken, {
      tool: "kit:write",
      autoApprove: true,
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ error: { code: "AIRLOCK_API_FORBIDDEN" } });
  });

  test("holds a mutating call until an operator approves it through the API", async () => {
    const pending = api("POST", "/api/instances/alpha/calls", f.agentToken, { tool: "kit:write", input: {} });
    const approval = await new Promise<{ approvalId: string }>((resolve) => {
      const off = f.host.on("permission.required", (event) => {
        off();
        resolve(event);
      });
    });
    const listed = await api("GET", "/api/approvals?agent=alpha", f.operatorToken);
    expect((listed.json?.approvals as Array<{ id: string }>).map((a) => a.id)).toContain(approval.approvalId);
    const decided = await api("POST", `/api/approvals/${approval.approvalId}`, f.operatorToken, {
      approve: true,
    });
    expect(decided.json).toEqual({ id: approval.approvalId, approved: true });
    const res = await pending;
    expect(res.json).toMatchObject({ result: { content: [{ text: "written" }] } });
  });

  test("answers 404 for a decision on an unknown approval", async () => {
    const res = await api("POST", "/api/approvals/apr_missing", f.operatorToken, { approve: false });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: { code: "AIRLOCK_API_UNKNOWN_APPROVAL" } });
  });

  test("queries the audit newest first with filters and paging", async () => {
    const first = await api("GET", "/api/audit?agent=alpha&kind=tool&limit=1", f.operatorToken);
    expect(first.status).toBe(200);
    const entries = first.json?.entries as Array<{ id: number; agent: string; kind: string }>;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ agent: "alpha", kind: "tool" });
    const next = first.json?.nextBefore as number;
    expect(next).toBe(entries[0]?.id);
    const second = await api(
      "GET",
      `/api/audit?agent=alpha&kind=tool&limit=1&before=${next}`,
      f.operatorToken,
    );
    expect((second.json?.entries as Array<{ id: number }>)[0]?.id).toBeLessThan(next);
  });

  test("exports the entries a filter selects as JSON and as CSV, newest first, as the query pages them", async () => {
    const page = await api("GET", "/api/audit?agent=alpha&limit=1000", f.operatorToken);
    const entries = page.json?.entries as Array<{ id: number; action: string }>;
    expect(entries.length).toBeGreaterThan(1);
    const json = await api("GET", "/api/audit/export?format=json&agent=alpha", f.operatorToken);
    expect(json.status).toBe(200);
    expect(json.json).toEqual(entries);
    const csv = await app.request("/api/audit/export?format=csv&agent=alpha", {
      headers: { authorization: `Bearer ${f.operatorToken}` },
    });
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="airlock-audit-.*\.csv"$/);
    const lines = (await csv.text()).split("\r\n").filter((line) => line !== "");
    expect(lines[0]).toBe(
      "id,at,agent,plugin,tool,conversationId,kind,action,allowed,success,error,durationMs,details",
    );
    expect(lines.slice(1).map((line) => Number(line.split(",")[0]))).toEqual(entries.map((e) => e.id));
    const bad = await api("GET", "/api/audit/export?format=xml", f.operatorToken);
    expect(bad.status).toBe(400);
  });
});

describe("plugins and meta", () => {
  test("lists installed plugins", async () => {
    const res = await api("GET", "/api/plugins", f.operatorToken);
    expect(res.status).toBe(200);
    expect(res.json?.plugins).toEqual([expect.objectContaining({ namespace: "kit", active: "1.0.0" })]);
  });

  test("answers health without a token", async () => {
    expect(await api("GET", "/healthz", null)).toEqual({
      status: 200,
      json: { status: "ok", version: f.host.version },
    });
  });
});
