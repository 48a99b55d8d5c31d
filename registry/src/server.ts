// Starts the registry on a real socket (@hono/node-server) over a data directory.
// Contract: `startRegistry({dataDir, port, host})` resolves once listening, with the bound URL
// and a `close()` that stops the listener and closes the index.
import { serve } from "@hono/node-server";
import { createRegistryApp, type RegistryAppOptions } from "./app.ts";
import { RegistryStorage } from "./storage.ts";

export interface StartRegistryOptions extends Omit<RegistryAppOptions, "storage"> {
  dataDir: string;
  /** 0 picks a free port. Default 4873. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningRegistry {
  url: string;
  storage: RegistryStorage;
  close(): Promise<void>;
}

export function startRegistry(options: StartRegistryOptions): Promise<RunningRegistry> {
  const storage = new RegistryStorage(options.dataDir);
  const { dataDir: _dataDir, port = 4873, host = "127.0.0.1", ...appOptions } = options;
  const app = createRegistryApp({ storage, ...appOptions });
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }, (info) => {
      const url = options.publicUrl ?? `http://${host.includes(":") ? `[${host}]` : host}:${info.port}`;
      resolve({
        url,
        storage,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => {
              storage.close();
              if (err) fail(err);
              else done();
            });
          }),
      });
    });
    server.once("error", (err) => {
      storage.close();
      reject(err);
    });
  });
}
