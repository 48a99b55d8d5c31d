// A TCP proxy in front of the shared PostgreSQL test server that a test owns and can cut: every
// connection through it dropped and new ones refused (the database "going away" for the hosts
// behind it, while the server itself stays up for every other suite), then restored.
import { connect, createServer, type Server, type Socket } from "node:net";
import { PG_URL } from "./postgres.ts";

export interface PgProxy {
  /** PG_URL with the proxy's host and port. */
  readonly url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function pgProxy(): Promise<PgProxy> {
  const target = new URL(PG_URL);
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined); // the other side's close follows; nothing to report
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const url = new URL(PG_URL);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
