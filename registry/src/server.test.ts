// One run over a real socket: the registry started with startRegistry, reached with undici.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishDocument, samplePluginFiles, samplePluginTarball } from "@airlock/sdk/package";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningRegistry, startRegistry } from "./server.ts";

let dir: string;
let registry: RunningRegistry;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "airlock-registry-sock-"));
  registry = await startRegistry({ dataDir: dir, port: 0 });
});
afterAll(async () => {
  await registry.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("registry over a socket", () => {
  it("publishes with a bearer token, then serves an absolute tarball URL that downloads the bytes", async () => {
    const { token } = registry.storage.createToken("acme");
    const tgz = samplePluginTarball({ namespace: "weather", version: "1.0.0" });
    const doc = publishDocument(tgz, samplePluginFiles({ namespace: "weather", version: "1.0.0" }).parsed);
    const put = await request(`${registry.url}/weather`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(doc),
    });
    expect(put.statusCode).toBe(201);
    await put.body.json();

    const packument = (await (await request(`${registry.url}/weather`)).body.json()) as {
      versions: Record<string, { dist: { tarball: string } }>;
    };
    const url = packument.versions["1.0.0"]?.dist.tarball ?? "";
    expect(url.startsWith(registry.url)).toBe(true);
    const download = await request(url);
    expect(download.statusCode).toBe(200);
    expect(new Uint8Array(await download.body.arrayBuffer())).toEqual(tgz);
  });
});
