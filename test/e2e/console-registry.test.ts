// The console's registry routes against a real registry on a socket: search by name, a package's
// versions, and what installing or upgrading to one version would change — read from the very
// tarball the installer would fetch, checked against the packument's integrity — with nothing
// installed by a preview. Refusals (no registry, unknown package, no matching version, tampered
// bytes, an upgrade of a plugin uploaded from a file) answer their code, are audited, and leave
// the host healthy.
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { testStore } from "../../host/src/state/store/test-store.ts";
import { createAdminApi } from "../../host/src/surfaces/http/app.ts";
import {
  startTestRegistry,
  type TestRegistry,
  WEATHER_NEXT_DESCRIPTION,
  weatherNext,
} from "./console-extras-support.ts";

let reg: TestRegistry;
let host: AirlockHost;
let bare: AirlockHost;
let app: Hono;
let bareApp: Hono;
let op: Record<string, string>;
let bareOp: Record<string, string>;
const dirs: string[] = [];

async function openHost(registryUrl: string | undefined, trustKeys: string[]) {
  const dataDir = await mkdtemp(join(tmpdir(), "airlock-console-registry-"));
  dirs.push(dataDir);
  return createHost({
    dataDir,
    store: testStore(dataDir),
    sandbox: { mode: "in-process" },
    onInternalError: () => undefined,
    trust: { keys: trustKeys },
    ...(registryUrl === undefined ? {} : { registryUrl }),
  });
}

async function json(res: Response) {
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown> & { error?: { code: string } },
  };
}

const get = async (path: string, a = app, h = op) => json(await a.request(path, { headers: h }));
const post = async (path: string, body: unknown, a = app, h = op) =>
  json(
    await a.request(path, {
      method: "POST",
      headers: { ...h, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );

async function refusals(h: AirlockHost, action: string) {
  return (await h.queryAudit({ kind: "admin", limit: 200 }))
    .filter((e) => e.action === action)
    .map((e) => e.error);
}

beforeAll(async () => {
  reg = await startTestRegistry();
  await reg.publish("weather", "1.0.0");
  await reg.publish("weather", "2.0.0", weatherNext);
  await reg.publish("maps", "1.0.0");
  host = await openHost(reg.registry.url, [reg.publicKeyPem]);
  bare = await openHost(undefined, []);
  app = createAdminApi(host, { mcp: false, log: () => undefined });
  bareApp = createAdminApi(bare, { mcp: false, log: () => undefined });
  op = { authorization: `Bearer ${(await host.issueToken("operator", undefined, "t")).token}` };
  bareOp = { authorization: `Bearer ${(await bare.issueToken("operator", undefined, "t")).token}` };
}, 60_000);
afterAll(async () => {
  await host?.close();
  await bare?.close();
  await reg?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("console registry routes", () => {
  test("searches the host's registry by name and says what is installed", async () => {
    const found = await get("/api/registry/search?q=weat");
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({
      registry: reg.registry.url,
      total: 1,
      packages: [{ name: "weather", latest: "2.0.0", installed: null }],
    });
    const all = await get("/api/registry/search");
    expect((all.body.packages as Array<{ name: string }>).map((p) => p.name)).toEqual(["maps", "weather"]);
  });

  test("lists a package's versions newest first, with their signatures", async () => {
    const v = await get("/api/registry/packages/weather");
    expect(v.body).toMatchObject({
      name: "weather",
      installed: null,
      versions: [
        { version: "2.0.0", signatures: 1, latest: true },
        { version: "1.0.0", signatures: 1, latest: false },
      ],
    });
  });

  test("previews an install and an upgrade from the tarball itself, installing nothing", async () => {
    const fresh = await post("/api/registry/preview", { name: "weather", range: "1.0.0" });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({
      namespace: "weather",
      from: null,
      to: "1.0.0",
      toolsAdded: ["weather:echo"],
    });
    expect(await host.plugins.list()).toEqual([]);
    await host.plugins.install("weather@1.0.0");
    const up = await post("/api/registry/preview", { name: "weather", upgrade: true });
    expect(up.body).toMatchObject({
      from: "1.0.0",
      to: "2.0.0",
      installed: true,
      signatures: 1,
      secretsAdded: ["forecast_key"],
      egressAdded: ["api.weather.example"],
      knowledge: { from: null, to: "read" },
      toolsChanged: [{ tool: "weather:echo", description: { to: WEATHER_NEXT_DESCRIPTION } }],
    });
    expect((await host.plugins.list())[0]?.active).toBe("1.0.0");
    expect((await get("/api/registry/search?q=weather")).body.packages).toMatchObject([
      { installed: "1.0.0" },
    ]);
  });

  test("refuses with a code, audited: no registry, unknown package, no such version", async () => {
    const none = await get("/api/registry/search?q=x", bareApp, bareOp);
    expect([none.status, none.body.error?.code]).toEqual([400, "AIRLOCK_INSTALL_NO_REGISTRY"]);
    expect(await refusals(bare, "registry.search")).toContain("AIRLOCK_INSTALL_NO_REGISTRY");
    const unknown = await get("/api/registry/packages/nothing-here");
    expect([unknown.status, unknown.body.error?.code]).toEqual([404, "AIRLOCK_INSTALL_NOT_FOUND"]);
    const range = await post("/api/registry/preview", { name: "weather", range: "^9" });
    expect(range.body.error?.code).toBe("AIRLOCK_INSTALL_NO_MATCHING_VERSION");
    expect(await refusals(host, "registry.preview")).toContain("AIRLOCK_INSTALL_NO_MATCHING_VERSION");
    expect((await app.request("/healthz")).status).toBe(200);
  });

  test("refuses an upgrade preview of a plugin that came from a file", async () => {
    const { samplePluginTarball } = await import("@airlock/sdk/package");
    await host.plugins.installTarball(
      samplePluginTarball({ namespace: "uploaded", version: "1.0.0" }),
      "upload:l.tgz",
      {
        allowUnsigned: true,
      },
    );
    const r = await post("/api/registry/preview", { name: "uploaded", upgrade: true });
    expect(r.body.error?.code).toBe("AIRLOCK_INSTALL_UPGRADE_NEEDS_REGISTRY");
  });

  test("refuses a tarball whose bytes were swapped on the registry's disk", async () => {
    const root = join(reg.registry.storage.dataDir, "tarballs");
    for (const sub of await readdir(root)) {
      for (const file of await readdir(join(root, sub))) {
        await writeFile(join(root, sub, file), "swapped bytes");
      }
    }
    const r = await post("/api/registry/preview", { name: "maps" });
    expect(r.body.error?.code).toBe("AIRLOCK_INSTALL_INTEGRITY_MISMATCH");
    expect(await refusals(host, "registry.preview")).toContain("AIRLOCK_INSTALL_INTEGRITY_MISMATCH");
    expect((await host.plugins.list()).some((p) => p.namespace === "maps")).toBe(false);
    expect((await app.request("/healthz")).status).toBe(200);
  });
});
