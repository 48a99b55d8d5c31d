// Plugin lifecycle over the admin API, in-process, with real tarballs: upload (octet-stream)
// and spec (a .tgz path) installs, upgrade, rollback, uninstall; bad tarballs fail closed with
// the installer's code and leave what is installed untouched.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Hono } from "hono";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createAdminApi } from "./app.ts";
import { createSurfaceFixture, kitTarball, type SurfaceFixture } from "./test-support.ts";

let f: SurfaceFixture;
let app: Hono;

const tool = { name: "hello", code: 'async () => "hello v1"', annotations: { readOnlyHint: true } };
const v1 = () => kitTarball({ namespace: "greeter", version: "1.0.0", tools: [tool] });
const v2 = () =>
  kitTarball({
    namespace: "greeter",
    version: "2.0.0",
    tools: [{ ...tool, code: 'async () => "hello v2"' }],
  });

async function op(method: string, path: string, init: { json?: unknown; bytes?: Uint8Array } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${f.operatorToken}` };
  let body: string | Uint8Array | undefined;
  if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.json);
  } else if (init.bytes !== undefined) {
    headers["content-type"] = "application/octet-stream";
    body = init.bytes;
  }
  const res = await app.request(path, { method, headers, ...(body === undefined ? {} : { body }) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  f = await createSurfaceFixture({ install: false });
  app = createAdminApi(f.host, { mcp: false, log: () => undefined });
});
afterAll(async () => {
  await f.close();
});

test("installs an uploaded tarball; its tools start disabled", async () => {
  const res = await op("POST", "/api/plugins?allowUnsigned=true&source=upload-test", { bytes: v1() });
  expect(res.status).toBe(201);
  expect(res.json).toMatchObject({
    namespace: "greeter",
    version: "1.0.0",
    previous: null,
    tools: ["greeter:hello"],
  });
  const tools = await op("GET", "/api/instances/alpha/tools");
  expect(
    (tools.json.tools as Array<Record<string, unknown>>).find((t) => t.id === "greeter:hello"),
  ).toMatchObject({
    enabled: false,
  });
});

test("refuses an unsigned upload without allowUnsigned, and garbage bytes, keeping v1", async () => {
  const unsigned = await op("POST", "/api/plugins", { bytes: v2() });
  expect(unsigned.status).toBe(422);
  expect((unsigned.json.error as { code: string }).code).toBe("AIRLOCK_INSTALL_UNSIGNED");
  const garbage = await op("POST", "/api/plugins?allowUnsigned=true", {
    bytes: new Uint8Array([1, 2, 3, 4]),
  });
  expect(garbage.status).toBe(422);
  expect((garbage.json.error as { code: string }).code).toBe("AIRLOCK_PACKAGE_NOT_GZIP");
  const list = await op("GET", "/api/plugins");
  expect(list.json.plugins).toEqual([expect.objectContaining({ namespace: "greeter", active: "1.0.0" })]);
});

test("installs from a spec path, rolls back, and uninstalls", async () => {
  const dir = join(f.dataDir, "uploads");
  await mkdir(dir, { recursive: true });
  const path = join(dir, "greeter-2.0.0.tgz");
  await writeFile(path, v2());
  const upgraded = await op("POST", "/api/plugins", { json: { spec: path, allowUnsigned: true } });
  expect(upgraded.status).toBe(201);
  expect(upgraded.json).toMatchObject({ version: "2.0.0", previous: "1.0.0" });
  const rolled = await op("POST", "/api/plugins/greeter/rollback");
  expect(rolled.status).toBe(200);
  expect(rolled.json).toMatchObject({ namespace: "greeter", version: "1.0.0" });
  const removed = await op("DELETE", "/api/plugins/greeter?purge=true");
  expect(removed.status).toBe(200);
  expect(removed.json).toMatchObject({ namespace: "greeter" });
  expect((await op("GET", "/api/plugins")).json.plugins).toEqual([]);
});

test("answers the installer's code for a namespace that is not installed", async () => {
  for (const res of [
    await op("POST", "/api/plugins/absent/rollback"),
    await op("POST", "/api/plugins/absent/upgrade"),
    await op("POST", "/api/plugins/absent/upgrade", { json: { range: "^2.0.0" } }),
    await op("DELETE", "/api/plugins/absent"),
  ]) {
    expect(res.status).toBe(404);
    expect((res.json.error as { code: string }).code).toBe("AIRLOCK_INSTALL_NOT_INSTALLED");
  }
});
