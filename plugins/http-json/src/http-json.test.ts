// The http-json plugin against a local JSON API on loopback (allowed explicitly by the test's
// operator policy): the API key is injected by the host into the X-Api-Key header and never
// appears in anything the plugin returns; loopback stays refused without the operator's consent.
import { createServer, type Server } from "node:http";
import { resolve } from "node:path";
import { createTestHarness, type TestHarness, testTool } from "@airlock/sdk/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pluginDir = resolve(import.meta.dirname, "..");
const KEY = "jh-live-8c1f0a9e77";
const LOCAL = { api_key: KEY, endpoint: "http://127.0.0.1:17911" };
const textOf = (r: { content: Array<{ type: string; text?: string }> }): string =>
  r.content.map((p) => p.text ?? "").join("");

function startApi(): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.headers["x-api-key"] !== KEY) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "bad key" }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      const body = Buffer.concat(chunks).toString("utf8");
      res.end(JSON.stringify({ method: req.method, url: req.url, received: body ? JSON.parse(body) : null }));
    });
  });
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(17911, "127.0.0.1", () => ok(server));
  });
}

describe("http-json plugin", () => {
  let server: Server;
  let h: TestHarness;
  beforeAll(async () => {
    server = await startApi();
    h = await createTestHarness({ egress: { allowPrivate: ["127.0.0.1"] } });
    await h.load(pluginDir);
    await h.setSecrets(LOCAL);
  });
  afterAll(async () => {
    await h?.close();
    await new Promise((ok) => server?.close(ok));
  });

  it("GETs JSON with the API key injected by the host", async () => {
    const r = await h.call("http-json:getJson", { path: "/v1/items?limit=2" });
    expect(r.isError).toBeUndefined();
    expect(JSON.parse(textOf(r))).toEqual({ method: "GET", url: "/v1/items?limit=2", received: null });
    expect(textOf(r)).not.toContain(KEY);
    const audit = await h.auditEntries();
    expect(audit.some((e) => e.kind === "capability" || e.kind === "tool")).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(KEY);
  });

  it("POSTs a JSON document and returns the answer", async () => {
    const r = await h.call("http-json:postJson", { path: "/v1/items", json: '{"name":"kettle"}' });
    expect(JSON.parse(textOf(r))).toMatchObject({ method: "POST", received: { name: "kettle" } });
  });

  it("tells the model when the JSON body is not JSON, without calling the API", async () => {
    const r = await h.call("http-json:postJson", { path: "/v1/items", json: "{nope" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/not valid JSON/);
  });

  it("reports an upstream refusal as a failed result", async () => {
    await h.setSecrets({ api_key: "wrong-key" });
    const r = await h.call("http-json:getJson", { path: "/v1/items" });
    await h.setSecrets(LOCAL);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/answered 401/);
  });

  it("is not served while its API key is missing", async () => {
    const r = await testTool({ pluginDir, tool: "getJson", input: { path: "/v1/x" } });
    expect(r.isError).toBe(true);
    expect(r.errorCode).toMatch(/^AIRLOCK_/);
  });

  it("cannot reach loopback unless the operator allows it", async () => {
    const r = await testTool({ pluginDir, tool: "getJson", input: { path: "/v1/x" }, secrets: LOCAL });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/AIRLOCK_FETCH_ADDRESS_REFUSED/);
    expect(textOf(r)).not.toContain(KEY);
  });
});
