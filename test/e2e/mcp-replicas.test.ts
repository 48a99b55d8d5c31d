// The MCP endpoint needs no stickiness: two hosts sharing one PostgreSQL store (and plugins
// volume and master key), each with its own HTTP server, behind a round-robin proxy that sends
// every request to the other host than the last one. Both SDK clients, in both eras, list and
// call through it; every call is served and both hosts answered.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline, Readable } from "node:stream";
import { samplePluginTarball } from "@airlock/sdk/package";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import { createHost } from "../../host/src/host.ts";
import { dropSchemas, freshSchemaName } from "../../host/src/state/store/postgres/test-schema.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { describePg, PG_URL } from "../support/postgres.ts";

/** Alternates every request between the upstreams, streaming both ways; counts who served what. */
function roundRobin(
  upstreams: AdminServer[],
): Promise<{ url: string; served: number[]; close(): Promise<void> }> {
  let next = 0;
  const served = upstreams.map(() => 0);
  const server: Server = createServer(async (req, res) => {
    const index = next++ % upstreams.length;
    served[index] = (served[index] ?? 0) + 1;
    const upstream = upstreams[index] as AdminServer;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (name === "host" || name === "connection" || name === "content-length" || value === undefined)
        continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const answer = await fetch(`${upstream.url}${req.url ?? "/"}`, {
        method: req.method ?? "GET",
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        signal: abort.signal,
      });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (answer.body === null) res.end();
      // A stream the client closed ends here too (the abort above); nothing to report.
      else pipeline(Readable.fromWeb(answer.body as never), res, () => undefined);
    } catch {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        served,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    }),
  );
}

describePg("MCP through two replicas with no stickiness", () => {
  const schema = freshSchemaName();
  let dir: string;
  let hosts: AirlockHost[] = [];
  let servers: AdminServer[] = [];
  let proxy: Awaited<ReturnType<typeof roundRobin>>;
  let token: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-mcp-replicas-"));
    const options = {
      dataDir: dir,
      store: { kind: "postgres" as const, url: PG_URL, schema },
      sandbox: { mode: "in-process" as const },
      masterKey: randomBytes(32).toString("base64"),
      autoApprove: true,
      onInternalError: () => undefined,
    };
    hosts = [await createHost(options), await createHost(options)];
    const [a] = hosts as [AirlockHost, AirlockHost];
    await a.plugins.installTarball(
      samplePluginTarball({ namespace: "shared", version: "1.0.0" }),
      "/tmp/s.tgz",
      {
        allowUnsigned: true,
      },
    );
    await a.createAgent("ada");
    await a.setToolsEnabled("ada", { "shared:echo": true });
    token = (await a.issueToken("agent", "ada", "replicas")).token;
    servers = await Promise.all(
      hosts.map((host) => startAdminServer(host, { port: 0, disableHostCheck: true, log: () => undefined })),
    );
    proxy = await roundRobin(servers);
  });
  afterAll(async () => {
    await proxy?.close();
    for (const server of servers) await server.close();
    for (const host of hosts) await host.close();
    await dropSchemas(PG_URL, [schema]);
    await rm(dir, { recursive: true, force: true });
  });

  it("serves every request of a 2025 session and of a 2026-07-28 client, whichever replica gets it", async () => {
    const url = new URL(`${proxy.url}/mcp/ada`);
    const requestInit = { headers: { authorization: `Bearer ${token}` } };
    const v1 = new V1Client({ name: "replicas", version: "1.0.0" });
    await v1.connect(new V1Transport(url, { requestInit }));
    const modern = new V2Client(
      { name: "replicas", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(new V2Transport(url, { requestInit }));
    const legacy = new V2Client({ name: "replicas", version: "1.0.0" });
    await legacy.connect(new V2Transport(url, { requestInit }));
    const before = [...proxy.served];
    for (const client of [v1, modern, legacy]) {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["shared__echo"]);
      for (let i = 0; i < 6; i++) {
        const result = await client.callTool({ name: "shared__echo", arguments: { text: `call ${i}` } });
        expect(result.isError).toBeUndefined();
        expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ text: `call ${i}` }) }]);
      }
    }
    const after = proxy.served.map((n, i) => n - (before[i] ?? 0));
    expect(after.every((n) => n >= 9)).toBe(true);
    await Promise.all([v1.close(), modern.close(), legacy.close()]);
  });
});
