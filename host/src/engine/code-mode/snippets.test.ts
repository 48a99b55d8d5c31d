// Saved snippets on a real host with the kit fixture, through the admin API (hono's app.request)
// and the library: off by default (saveAs refused, nothing runs), saved by a successful run_code
// only, reviewed and promoted by an operator into a skill of that agent alone, never replaced by
// the model once promoted, withdrawn and deleted; an agent token cannot promote; every change
// audited.
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ToolCallOutcome } from "../../contracts/host.ts";
import { createAdminApi } from "../../surfaces/http/app.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../../surfaces/http/test-support.ts";

let f: SurfaceFixture;
let app: Hono;

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await app.request(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function runCode(input: Record<string, unknown>): Promise<ToolCallOutcome> {
  return f.host.callTool("alpha", "run_code", input, { agent: "alpha" });
}

const CODE = 'return await tools.kit.echo({ text: "saved" });';

beforeAll(async () => {
  f = await createSurfaceFixture();
  app = createAdminApi(f.host, { mcp: false, log: () => undefined });
  await f.host.setCodeMode("alpha", { enabled: true });
});
afterAll(async () => {
  await f.close();
});

describe("saved snippets", () => {
  test("are off by default: saveAs is refused and the code does not run", async () => {
    expect((await f.host.getCodeMode("alpha")).snippets).toBe(false);
    const before = (await f.host.queryAudit({ agent: "alpha", tool: "echo", limit: 100 })).length;
    const out = await runCode({ code: CODE, saveAs: { name: "echo-once" } });
    expect(out.errorCode).toBe("AIRLOCK_CODE_SNIPPETS_OFF");
    expect((await f.host.queryAudit({ agent: "alpha", tool: "echo", limit: 100 })).length).toBe(before);
    expect(await f.host.snippets.list("alpha")).toEqual([]);
  });

  test("keep the code of a successful run, and nothing of a failed or malformed one", async () => {
    await f.host.setCodeMode("alpha", { snippets: true });
    const ok = await runCode({ code: CODE, saveAs: { name: "echo-once", description: "Echoes once." } });
    expect(ok.errorCode).toBeUndefined();
    expect(ok.result.structuredContent).toEqual({ value: "echo: saved", savedAs: "echo-once" });
    const failed = await runCode({ code: "throw new Error('no');", saveAs: { name: "broken" } });
    expect(failed.errorCode).toBe("AIRLOCK_CODE_THREW");
    const badName = await runCode({ code: CODE, saveAs: { name: "Bad Name" } });
    expect(badName.errorCode).toBe("AIRLOCK_CODE_SNIPPET_INVALID");
    const badShape = await runCode({ code: CODE, saveAs: "echo" });
    expect(badShape.errorCode).toBe("AIRLOCK_CODE_SNIPPET_INVALID");
    const listed = await api("GET", "/api/instances/alpha/snippets", f.operatorToken);
    expect(listed.status).toBe(200);
    expect(listed.json.snippets).toEqual([
      expect.objectContaining({
        name: "echo-once",
        description: "Echoes once.",
        savedBy: "run_code",
        promoted: false,
      }),
    ]);
    expect(JSON.stringify(listed.json)).not.toContain("tools.kit.echo");
    const one = await api("GET", "/api/instances/alpha/snippets/echo-once", f.operatorToken);
    expect(one.json).toMatchObject({ code: CODE, callId: expect.stringMatching(/^call_/) });
    const unknown = await api("GET", "/api/instances/alpha/snippets/nope", f.operatorToken);
    expect(unknown.status).toBe(404);
  });

  test("promoted by an operator, a snippet is a skill of its agent only, and the model cannot replace it", async () => {
    const forbidden = await api("POST", "/api/instances/alpha/snippets/echo-once/promote", f.agentToken, {});
    expect(forbidden.status).toBe(403);
    const promoted = await api(
      "POST",
      "/api/instances/alpha/snippets/echo-once/promote",
      f.operatorToken,
      {},
    );
    expect(promoted).toMatchObject({ status: 200, json: { promoted: true } });
    const skills = await f.host.listSkills("alpha");
    expect(skills).toContainEqual(
      expect.objectContaining({
        id: "airlock:skill:snippet-echo-once",
        description: "Echoes once.",
        enabled: true,
      }),
    );
    const doc = await f.host.readSkill("alpha", "airlock:skill:snippet-echo-once");
    expect(doc.body).toContain(CODE);
    expect((await f.host.listSkills("beta")).map((s) => s.id)).not.toContain(
      "airlock:skill:snippet-echo-once",
    );
    await expect(f.host.readSkill("beta", "airlock:skill:snippet-echo-once")).rejects.toMatchObject({
      code: "AIRLOCK_SKILL_UNKNOWN",
    });
    const replace = await runCode({ code: "return 'evil';", saveAs: { name: "echo-once" } });
    expect(replace.result.structuredContent).toMatchObject({
      value: "evil",
      snippetError: { code: "AIRLOCK_CODE_SNIPPET_PROMOTED" },
    });
    expect((await f.host.readSkill("alpha", "airlock:skill:snippet-echo-once")).body).toContain(CODE);
  });

  test("an operator saves, withdraws and deletes; each change is audited", async () => {
    const saved = await api("PUT", "/api/instances/alpha/snippets/by-hand", f.operatorToken, {
      code: "return 1;",
      description: "One.",
    });
    expect(saved.json).toMatchObject({ name: "by-hand", savedBy: "operator", promoted: false });
    const withdrawn = await api("POST", "/api/instances/alpha/snippets/echo-once/promote", f.operatorToken, {
      promoted: false,
    });
    expect(withdrawn.json).toMatchObject({ promoted: false });
    await expect(f.host.readSkill("alpha", "airlock:skill:snippet-echo-once")).rejects.toMatchObject({
      code: "AIRLOCK_SKILL_UNKNOWN",
    });
    const deleted = await api("DELETE", "/api/instances/alpha/snippets/echo-once", f.operatorToken);
    expect(deleted.json).toEqual({ deleted: true });
    expect((await f.host.snippets.list("alpha")).map((s) => s.name)).toEqual(["by-hand"]);
    const actions = (await f.host.queryAudit({ agent: "alpha", kind: "admin", limit: 50 })).map(
      (e) => e.action,
    );
    expect(actions).toEqual(expect.arrayContaining(["snippet.save", "snippet.promote", "snippet.delete"]));
  });
});
