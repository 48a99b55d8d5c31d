import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../test/support/cli.ts";
import { copyFixture, type FixtureCopy } from "../../test/support/fixtures.ts";
import { buildPlugin } from "../build/build-plugin.ts";
import { packPlugin } from "../build/pack.ts";
import { integrityOf, verifyIntegritySignature } from "../signing.ts";

interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

let fixture: FixtureCopy;
let server: Server;
let registry: string;
const received: Received[] = [];
let answer: { status: number; body: string } = { status: 201, body: '{"ok":true}' };

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

beforeAll(async () => {
  fixture = await copyFixture("notes");
  await buildPlugin(fixture.dir);
  server = createServer(async (req, res) => {
    received.push({
      method: req.method ?? "",
      url: req.url ?? "",
      authorization: req.headers.authorization,
      body: JSON.parse(await bodyOf(req)),
    });
    res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await fixture.remove();
});

describe("airlock-plugin publish", () => {
  it("PUTs the packed tarball with its manifest, integrity and a signature that verifies", async () => {
    const cwd = fixture.dir;
    expect((await runCli(["keygen", "--name", "acme"], cwd)).code).toBe(0);
    const run = await runCli(["publish", "--registry", registry, "--key", "acme.key"], cwd, {
      AIRLOCK_REGISTRY_TOKEN: "tok-secret-123",
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("published fixture-notes@0.3.0");
    expect(run.stdout + run.stderr).not.toContain("tok-secret-123");

    const req = received.at(-1);
    expect(req).toMatchObject({
      method: "PUT",
      url: "/fixture-notes",
      authorization: "Bearer tok-secret-123",
    });
    const body = req?.body as {
      name: string;
      versions: Record<
        string,
        {
          name: string;
          version: string;
          airlock: unknown;
          dist: { integrity: string; signatures: Array<{ keyid: string; sig: string }> };
        }
      >;
      _attachments: Record<string, { content_type: string; data: string; length: number }>;
    };
    expect(body.name).toBe("fixture-notes");
    const version = body.versions["0.3.0"];
    const attachment = body._attachments["fixture-notes-0.3.0.tgz"];
    const bytes = Buffer.from(attachment?.data ?? "", "base64");
    expect(attachment).toMatchObject({ content_type: "application/octet-stream", length: bytes.byteLength });
    expect(version?.dist.integrity).toBe(integrityOf(bytes));
    expect(version?.airlock).toEqual(JSON.parse(await readFile(join(cwd, "dist/airlock.json"), "utf8")));
    const pub = await readFile(join(cwd, "acme.pub"), "utf8");
    expect(version?.dist.signatures).toHaveLength(1);
    expect(
      verifyIntegritySignature(
        version?.dist.integrity ?? "",
        version?.dist.signatures[0] ?? { keyid: "", sig: "" },
        pub,
      ),
    ).toBe(true);

    const packed = await packPlugin(cwd);
    expect(packed.integrity).toBe(version?.dist.integrity);
  });

  it("prints the registry's error code and message and exits 1 when it refuses", async () => {
    answer = {
      status: 403,
      body: JSON.stringify({
        error: { code: "AIRLOCK_REGISTRY_FORBIDDEN", message: "owned by another publisher" },
      }),
    };
    const run = await runCli(["publish", "--registry", registry, "--token", "t"], fixture.dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: AIRLOCK_REGISTRY_FORBIDDEN: owned by another publisher (HTTP 403)");
    expect(received.at(-1)?.body.versions).toBeTruthy();
  });

  it("refuses a signing key that is not an ed25519 PEM before uploading anything", async () => {
    const before = received.length;
    const run = await runCli(
      ["publish", "--registry", registry, "--token", "t", "--key", "package.json"],
      fixture.dir,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("AIRLOCK_SDK_KEY_INVALID");
    expect(received.length).toBe(before);
  });

  it("exits 2 without a token, and 1 when the registry cannot be reached", async () => {
    expect((await runCli(["publish", "--registry", registry], fixture.dir)).code).toBe(2);
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, "close");
    const run = await runCli(
      ["publish", "--registry", `http://127.0.0.1:${port}`, "--token", "t"],
      fixture.dir,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("AIRLOCK_SDK_PUBLISH_FAILED");
  });
});
