// The registry driven in-process through its hono app: publish, resolve, download, ownership,
// immutability, name policy and validation, each refusal by its code.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PluginManifest } from "@airlock/sdk/manifest";
import {
  gzip,
  publishDocument,
  samplePluginFiles,
  samplePluginTarball,
  tarArchive,
} from "@airlock/sdk/package";
import { generateKeyPair, signIntegrity } from "@airlock/sdk/signing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRegistryApp } from "./app.ts";
import type { Packument } from "./packument.ts";
import { RegistryStorage } from "./storage.ts";

let dir: string;
let storage: RegistryStorage;
let app: ReturnType<typeof createRegistryApp>;
let alice: string;
let mallory: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-registry-"));
  storage = new RegistryStorage(dir);
  app = createRegistryApp({ storage, publicUrl: "http://registry.test" });
  alice = storage.createToken("alice").token;
  mallory = storage.createToken("mallory").token;
});
afterEach(() => {
  storage.close();
  rmSync(dir, { recursive: true, force: true });
});

function put(name: string, body: unknown, token?: string) {
  return app.request(`/${encodeURIComponent(name)}`, {
    method: "PUT",
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
}

function docFor(namespace: string, version: string, patch?: (m: PluginManifest) => void) {
  const tgz = samplePluginTarball({ namespace, version, ...(patch === undefined ? {} : { patch }) });
  return {
    tgz,
    doc: publishDocument(
      tgz,
      samplePluginFiles({ namespace, version, ...(patch === undefined ? {} : { patch }) }).parsed,
    ),
  };
}

async function codeOf(res: Response): Promise<string> {
  const body = (await res.json()) as { error?: { code?: string } };
  return String(body.error?.code);
}

describe("registry app", () => {
  it("publishes a version and serves its packument and exact tarball bytes", async () => {
    const keys = generateKeyPair();
    const { tgz, doc } = docFor("weather", "1.0.0");
    const version = doc.versions["1.0.0"];
    if (version === undefined) throw new Error("fixture");
    version.dist.signatures = [signIntegrity(version.dist.integrity, keys.privateKeyPem)];
    expect((await put("weather", doc, alice)).status).toBe(201);

    const res = await app.request("/weather");
    expect(res.status).toBe(200);
    const packument = (await res.json()) as Packument;
    expect(packument["dist-tags"].latest).toBe("1.0.0");
    const v = packument.versions["1.0.0"];
    if (v === undefined) throw new Error("no 1.0.0 in the packument");
    expect(v.airlock.namespace).toBe("weather");
    expect(v.dist.tarball).toBe("http://registry.test/weather/-/weather-1.0.0.tgz");
    expect(v.dist.integrity).toBe(version.dist.integrity);
    expect(v.dist.signatures).toEqual(version.dist.signatures);

    const download = await app.request("/weather/-/weather-1.0.0.tgz");
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(tgz);
  });

  it("keeps dist-tags.latest on the highest stable version when a prerelease is newer", async () => {
    for (const v of ["1.0.0", "1.1.0", "2.0.0-beta.1"])
      expect((await put("weather", docFor("weather", v).doc, alice)).status).toBe(201);
    const packument = (await (await app.request("/weather")).json()) as Packument;
    expect(packument["dist-tags"].latest).toBe("1.1.0");
    expect(Object.keys(packument.versions).sort()).toEqual(["1.0.0", "1.1.0", "2.0.0-beta.1"]);
  });

  it("refuses to re-publish an existing version, keeping the first bytes", async () => {
    const first = docFor("weather", "1.0.0");
    expect((await put("weather", first.doc, alice)).status).toBe(201);
    const second = docFor("weather", "1.0.0", (m) => {
      m.description = "changed";
    });
    const res = await put("weather", second.doc, alice);
    expect(res.status).toBe(409);
    expect(await codeOf(res)).toBe("AIRLOCK_REGISTRY_VERSION_EXISTS");
    const download = await app.request("/weather/-/weather-1.0.0.tgz");
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(first.tgz);
  });

  it("accepts exactly one of two concurrent publishes of the same version", async () => {
    const a = docFor("weather", "1.0.0");
    const b = docFor("weather", "1.0.0", (m) => {
      m.description = "racing";
    });
    const statuses = (await Promise.all([put("weather", a.doc, alice), put("weather", b.doc, alice)])).map(
      (r) => r.status,
    );
    expect(statuses.sort()).toEqual([201, 409]);
    expect(storage.getPackage("weather")?.versions).toHaveLength(1);
  });

  it("lets only the first publisher's tokens publish to a namespace", async () => {
    expect((await put("weather", docFor("weather", "1.0.0").doc, alice)).status).toBe(201);
    const res = await put("weather", docFor("weather", "1.0.1").doc, mallory);
    expect(res.status).toBe(403);
    const body = await res.text();
    expect(JSON.parse(body).error.code).toBe("AIRLOCK_REGISTRY_FORBIDDEN");
    expect(body).not.toContain(mallory);
    expect(body).not.toContain("alice");
    const second = storage.createToken("alice", "ci").token;
    expect((await put("weather", docFor("weather", "1.0.1").doc, second)).status).toBe(201);
  });

  it("refuses a publish without a valid token", async () => {
    const { doc } = docFor("weather", "1.0.0");
    expect(await codeOf(await put("weather", doc))).toBe("AIRLOCK_REGISTRY_UNAUTHORIZED");
    const forged = await put("weather", doc, "airlock_reg_forged");
    const text = await forged.text();
    expect(JSON.parse(text).error.code).toBe("AIRLOCK_REGISTRY_UNAUTHORIZED");
    expect(text).not.toContain("airlock_reg_forged");
    expect((await app.request("/weather")).status).toBe(404);
  });

  it("refuses reserved namespaces and names that fold onto an existing one", async () => {
    expect((await put("payments", docFor("payments", "1.0.0").doc, alice)).status).toBe(201);
    const reserved = await put("airlock", { name: "airlock" }, mallory);
    expect(await codeOf(reserved)).toBe("AIRLOCK_REGISTRY_NAME_RESERVED");
    for (const twin of ["paymemts", "pay-ments", "payrnents"]) {
      const res = await put(twin, docFor(twin, "1.0.0").doc, mallory);
      const code = await codeOf(res);
      if (twin === "paymemts") expect(code).not.toBe("AIRLOCK_REGISTRY_NAME_LOOKALIKE");
      else expect(code).toBe("AIRLOCK_REGISTRY_NAME_LOOKALIKE");
    }
  });

  it("refuses a name with a Cyrillic letter in it", async () => {
    const res = await put("p\u0430yments", { name: "p\u0430yments" }, mallory);
    expect(res.status).toBe(403);
    expect(await codeOf(res)).toBe("AIRLOCK_REGISTRY_NAME_LOOKALIKE");
  });

  it("refuses a declared integrity that does not match the attachment", async () => {
    const { doc } = docFor("weather", "1.0.0");
    const other = docFor("weather", "1.0.1").doc.versions["1.0.1"];
    const v = doc.versions["1.0.0"];
    if (v === undefined || other === undefined) throw new Error("fixture");
    v.dist.integrity = other.dist.integrity;
    expect(await codeOf(await put("weather", doc, alice))).toBe("AIRLOCK_REGISTRY_MISMATCH");
  });

  it("refuses a declared manifest that differs from the tarball's airlock.json", async () => {
    const { doc } = docFor("weather", "1.0.0");
    const v = doc.versions["1.0.0"];
    if (v === undefined) throw new Error("fixture");
    v.airlock = { ...v.airlock, egress: [{ host: "evil.example" }] };
    expect(await codeOf(await put("weather", doc, alice))).toBe("AIRLOCK_REGISTRY_MISMATCH");
  });

  it("refuses a tool schema that fails the strict-mode lint", async () => {
    const { doc } = docFor("weather", "1.0.0", (m) => {
      const tool = m.tools[0];
      if (tool !== undefined)
        tool.inputSchema = { type: "object", properties: { url: { type: "string", format: "uri" } } };
    });
    expect(await codeOf(await put("weather", doc, alice))).toBe("AIRLOCK_REGISTRY_LINT_FAILED");
  });

  it("refuses a tool whose uses reach beyond its plugin (a tarball made by hand), storing nothing", async () => {
    const { doc } = docFor("weather", "1.0.0", (m) => {
      const tool = m.tools[0];
      if (tool !== undefined) tool.uses = { fetch: [{ host: "evil.example", methods: ["GET"] }] };
    });
    const res = await put("weather", doc, alice);
    expect(res.status).toBe(422);
    const body = (await res.json()) as {
      error: { code: string; details?: { problems?: Array<{ path: string }> } };
    };
    expect(body.error.code).toBe("AIRLOCK_REGISTRY_USES_EXCEEDED");
    expect(body.error.details?.problems?.map((p) => p.path)).toEqual(["$.tools[0].uses.fetch[0].host"]);
    expect((await app.request("/weather")).status).toBe(404);
  });

  it("passes the tarball reader's refusal code through", async () => {
    const { doc } = docFor("weather", "1.0.0");
    const att = doc._attachments["weather-1.0.0.tgz"];
    if (att === undefined) throw new Error("fixture");
    const bogus = Buffer.from("not a tarball at all, definitely not");
    att.data = bogus.toString("base64");
    att.length = bogus.length;
    const v = doc.versions["1.0.0"];
    if (v === undefined) throw new Error("fixture");
    v.dist.integrity = `sha512-${(await import("node:crypto")).createHash("sha512").update(bogus).digest("base64")}`;
    expect(await codeOf(await put("weather", doc, alice))).toBe("AIRLOCK_PACKAGE_NOT_GZIP");
  });

  it("stores nothing for a hostile tarball: no file under tarballs/, no package", async () => {
    const files = samplePluginFiles({ namespace: "weather", version: "1.0.0" });
    const evil = gzip(
      tarArchive([
        { path: "package/package.json", body: files.packageJson },
        { path: "package/airlock.json", body: files.manifest },
        { path: "package/index.js", type: "2", linkpath: "/etc/passwd" },
      ]),
    );
    const res = await put("weather", publishDocument(evil, files.parsed), alice);
    expect(res.status).toBe(422);
    expect(await codeOf(res)).toBe("AIRLOCK_PACKAGE_SYMLINK");
    expect(readdirSync(join(dir, "tarballs"))).toEqual([]);
    expect((await app.request("/weather")).status).toBe(404);
    expect((await put("weather", docFor("weather", "1.0.0").doc, alice)).status).toBe(201);
  });

  it("refuses a body over the size cap and a malformed signature", async () => {
    const small = createRegistryApp({ storage, maxTarballBytes: 1024 });
    const big = await small.request("/weather", {
      method: "PUT",
      headers: { authorization: `Bearer ${alice}`, "content-type": "application/json" },
      body: JSON.stringify({ pad: "x".repeat(3 * 1024 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(await codeOf(big)).toBe("AIRLOCK_REGISTRY_TOO_LARGE");
    const { doc } = docFor("weather", "1.0.0");
    const v = doc.versions["1.0.0"];
    if (v === undefined) throw new Error("fixture");
    v.dist.signatures = [{ keyid: "SHA256:short", sig: "AAAA" }];
    expect(await codeOf(await put("weather", doc, alice))).toBe("AIRLOCK_REGISTRY_SIGNATURE_MALFORMED");
  });

  it("searches names and latest descriptions, names first, and refuses a bad size", async () => {
    for (const [ns, version] of [
      ["weather", "1.0.0"],
      ["weather", "1.2.0"],
      ["maps", "2.0.0"],
    ] as const) {
      expect((await put(ns, docFor(ns, version).doc, alice)).status).toBe(201);
    }
    const search = async (query: string) => {
      const res = await app.request(`/-/v1/search?${query}`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const byName = await search("text=WEATH");
    expect(byName.body).toMatchObject({
      total: 1,
      objects: [{ package: { name: "weather", version: "1.2.0" } }],
    });
    const all = await search("text=");
    expect((all.body.objects as Array<{ package: { name: string } }>).map((o) => o.package.name)).toEqual([
      "maps",
      "weather",
    ]);
    expect((await search("text=nothing-like-this")).body).toEqual({ objects: [], total: 0 });
    expect((await search("text=a&size=1")).body).toMatchObject({ total: 2 });
    const bad = await app.request("/-/v1/search?size=500");
    expect(bad.status).toBe(400);
    expect(await codeOf(bad)).toBe("AIRLOCK_REGISTRY_BAD_REQUEST");
  });

  it("answers unknown packages and tarballs with AIRLOCK_REGISTRY_NOT_FOUND", async () => {
    expect(await codeOf(await app.request("/nothing"))).toBe("AIRLOCK_REGISTRY_NOT_FOUND");
    expect(await codeOf(await app.request("/nothing/-/nothing-1.0.0.tgz"))).toBe(
      "AIRLOCK_REGISTRY_NOT_FOUND",
    );
  });
});
