// The upload plugin against a local file service (loopback, allowed explicitly; one server for
// the file, as the plugin declares one local port). The render → upload handoff through
// ctx.artifacts runs in one harness (one host, one store): render puts real bytes, upload takes
// them by handle and POSTs them with the token injected by the host, or saves them to knowledge.
// uploadAttachment gets the user's file through the harness's `attachments` option.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { resolve } from "node:path";
import { createTestHarness, type TestHarness, testTool } from "@airlock/sdk/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromBase64 } from "./base64.ts";

const uploadDir = resolve(import.meta.dirname, "..");
const renderDir = resolve(import.meta.dirname, "../../render");
const TOKEN = "dz-secret-token-5521";
const textOf = (r: { content: Array<{ type: string; text?: string }> }): string =>
  r.content.map((p) => p.text ?? "").join("");
const jsonOf = (r: { content: Array<{ type: string; text?: string }> }): Record<string, unknown> =>
  JSON.parse(r.content.find((p) => p.type === "text")?.text ?? "null") as Record<string, unknown>;

interface Received {
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

function startFileService(received: Received[]): Promise<Server> {
  const server = createServer((req: IncomingMessage, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      received.push({
        url: req.url ?? "",
        authorization: req.headers.authorization,
        contentType: req.headers["content-type"],
        body: Buffer.concat(parts),
      });
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ url: `http://127.0.0.1:17913/f/${received.length}` }));
    });
  });
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(17913, "127.0.0.1", () => ok(server));
  });
}

const received: Received[] = [];
let server: Server;
beforeAll(async () => {
  server = await startFileService(received);
});
afterAll(async () => {
  await new Promise((ok) => server?.close(ok));
});

describe("render hands files to upload through artifacts", () => {
  let h: TestHarness;

  beforeAll(async () => {
    h = await createTestHarness({ knowledgeLevel: "write", egress: { allowPrivate: ["127.0.0.1"] } });
    await h.load(renderDir);
    await h.load(uploadDir);
    await h.setSecrets({ upload_token: TOKEN, upload_endpoint: "http://127.0.0.1:17913" });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("uploads the exact CSV bytes render produced, with the token injected by the host", async () => {
    const rendered = await h.call("render:renderCsv", {
      columns: ["city", "temp"],
      rows: [
        ["Oslo", "3"],
        ["Zürich, CH", "11"],
      ],
      filename: "temps",
    });
    const { handle, filename } = jsonOf(rendered) as { handle: string; filename: string };
    expect(filename).toBe("temps.csv");
    expect(textOf(rendered)).not.toContain("Oslo");

    const uploaded = await h.call("upload:uploadArtifact", { handle, destination: null });
    expect(uploaded.isError).toBeUndefined();
    expect(jsonOf(uploaded)).toMatchObject({
      destination: "service",
      filename: "temps.csv",
      url: expect.any(String),
    });
    const got = received.at(-1)!;
    expect(got.url).toBe("/v1/files?name=temps.csv");
    expect(got.authorization).toBe(TOKEN);
    expect(got.contentType).toBe("text/csv");
    expect(got.body.toString("utf8")).toBe('city,temp\r\nOslo,3\r\n"Zürich, CH",11\r\n');
    expect(textOf(uploaded)).not.toContain(TOKEN);
  });

  it("hands a PNG over once: a second take of the same handle finds nothing", async () => {
    const chart = await h.call("render:renderChart", {
      values: [1, 5, 3],
      width: 60,
      height: 40,
      filename: null,
    });
    expect(chart.content.some((p) => p.type === "image")).toBe(true);
    const { handle } = jsonOf(chart) as { handle: string };
    const first = await h.call("upload:uploadArtifact", { handle, destination: "service" });
    expect(first.isError).toBeUndefined();
    const png = received.at(-1)!.body;
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    expect(png.readUInt32BE(16)).toBe(60);
    const second = await h.call("upload:uploadArtifact", { handle, destination: "service" });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toMatch(/unknown, expired or already used/);
  });

  it("does not hand an artifact to another conversation", async () => {
    const rendered = await h.call(
      "render:renderCsv",
      { columns: ["a"], rows: [["1"]], filename: null },
      {
        conversationId: "conv-1",
      },
    );
    const { handle } = jsonOf(rendered) as { handle: string };
    const stolen = await h.call(
      "upload:uploadArtifact",
      { handle, destination: null },
      { conversationId: "conv-2" },
    );
    expect(stolen.isError).toBe(true);
    const own = await h.call(
      "upload:uploadArtifact",
      { handle, destination: null },
      { conversationId: "conv-1" },
    );
    expect(own.isError).toBeUndefined();
  });

  it("saves a text file into knowledge as the upload plugin, and refuses a binary one", async () => {
    const csv = jsonOf(
      await h.call("render:renderCsv", { columns: ["k"], rows: [["quokka"]], filename: "animals" }),
    );
    const saved = await h.call("upload:uploadArtifact", { handle: csv.handle, destination: "knowledge" });
    expect(jsonOf(saved)).toMatchObject({ destination: "knowledge", filename: "animals.csv" });
    const png = jsonOf(
      await h.call("render:renderChart", { values: [1], width: null, height: null, filename: null }),
    );
    const refused = await h.call("upload:uploadArtifact", { handle: png.handle, destination: "knowledge" });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/binary/);
  });
});

describe("uploadAttachment", () => {
  const secrets = { upload_token: TOKEN, upload_endpoint: "http://127.0.0.1:17913" };
  const bytes = Buffer.from([0, 1, 2, 250, 255, 10, 13, 61, 43, 47]);

  it("uploads the attached bytes exactly, with the token injected by the host", async () => {
    const r = await testTool({
      pluginDir: uploadDir,
      tool: "uploadAttachment",
      input: { filename: "scan.bin" },
      secrets,
      egress: { allowPrivate: ["127.0.0.1"] },
      attachments: [
        {
          filename: "scan.bin",
          mime: "application/octet-stream",
          size: bytes.length,
          data: bytes.toString("base64"),
        },
      ],
    });
    expect(r.isError).toBeUndefined();
    const got = received.at(-1)!;
    expect(got.body.equals(bytes)).toBe(true);
    expect(got.authorization).toBe(TOKEN);
    expect(got.url).toBe("/v1/files?name=scan.bin");
    expect(textOf(r)).not.toContain(TOKEN);
  });

  it("names the attachments there are when asked for another", async () => {
    const r = await testTool({
      pluginDir: uploadDir,
      tool: "uploadAttachment",
      input: { filename: "missing.pdf" },
      secrets,
      attachments: [{ filename: "a.txt", mime: "text/plain", size: 1, data: "YQ==" }],
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/attached: a\.txt/);
  });
});

describe("fromBase64", () => {
  it("decodes like Node for every padding case and refuses what atob refuses", () => {
    for (const n of [0, 1, 2, 3, 4, 5, 64]) {
      const b = Buffer.from(Array.from({ length: n }, (_, i) => (i * 89) & 255));
      expect(Buffer.from(fromBase64(b.toString("base64")) ?? [])).toEqual(b);
    }
    expect(fromBase64("abcde")).toBeNull();
    expect(fromBase64("a*==")).toBeNull();
  });
});
