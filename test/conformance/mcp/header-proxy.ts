// A loopback reverse proxy that adds headers (the agent's bearer token) to every request: the
// conformance runner sends none, and every Airlock MCP endpoint wants one. It is transparent
// otherwise: method, path, body and every other header pass through both ways, and responses
// stream (SSE) chunk by chunk. Host and Origin naming the proxy's own address are rewritten
// to the upstream's (what a client pointed at the upstream would send); any other Host or
// Origin passes unchanged, so the upstream's own DNS-rebinding guard is what answers them.
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

export interface HeaderProxy {
  /** `upstream` with its origin replaced by the proxy's. */
  url: string;
  close(): Promise<void>;
}

export async function startHeaderProxy(upstream: string, add: Record<string, string>): Promise<HeaderProxy> {
  const target = new URL(upstream);
  let self = "";
  const server = createServer((req, res) => {
    const headers = { ...req.headers, ...add };
    if (headers.host === self) headers.host = target.host;
    if (headers.origin === `http://${self}`) headers.origin = target.origin;
    const out = request(
      { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    out.on("error", (error) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`header proxy: ${error.message}`);
    });
    // A client that goes away (the suite cancels SSE readers) ends the upstream request too.
    res.on("close", () => out.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  self = `127.0.0.1:${port}`;
  return {
    url: `http://${self}${target.pathname}${target.search}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
