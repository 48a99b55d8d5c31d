// The LISTEN side of Store.cluster: one dedicated connection (outside the pool, which would
// hand it to other queries) listening on the schema's channel, reconnecting by itself.
// Invariants: after every reconnect `onResync` runs, so a replica re-reads the rows whose
// signals it may have missed; a malformed payload is reported, never thrown; close() stops
// the reconnect loop and ends the connection.
import pg from "pg";
import type { ClusterListenHandlers, ClusterSignal } from "../cluster-types.ts";

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2000;

export interface ListenConfig {
  connectionString: string;
  options?: string;
}

function parseSignal(payload: string | undefined): ClusterSignal | null {
  if (payload === undefined) return null;
  const value = JSON.parse(payload) as unknown;
  if (typeof value !== "object" || value === null) return null;
  const s = value as ClusterSignal;
  return typeof s.replica === "string" && typeof s.kind === "string" ? s : null;
}

export async function listenOn(
  config: ListenConfig,
  channel: string,
  handlers: ClusterListenHandlers,
): Promise<{ close(): Promise<void> }> {
  let closed = false;
  let client: pg.Client | undefined;
  let retryMs = RETRY_MIN_MS;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({
      connectionString: config.connectionString,
      keepAlive: true,
      connectionTimeoutMillis: 5000,
      ...(config.options === undefined ? {} : { options: config.options }),
    });
    let failed = false;
    const lost = (error: unknown) => {
      if (failed) return;
      failed = true;
      if (client === c) client = undefined;
      c.end().catch(() => undefined);
      if (closed) return;
      handlers.onError(error);
      schedule();
    };
    c.on("error", lost);
    c.on("end", () => lost(new Error("the LISTEN connection ended")));
    c.on("notification", (message) => {
      if (message.channel !== channel) return;
      try {
        const signal = parseSignal(message.payload);
        if (signal !== null) handlers.onSignal(signal);
      } catch (error) {
        handlers.onError(error);
      }
    });
    await c.connect();
    await c.query(`LISTEN "${channel}"`);
    if (closed) {
      await c.end();
      return;
    }
    client = c;
    retryMs = RETRY_MIN_MS;
  };

  const schedule = () => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      connect().then(
        () => {
          if (!closed) handlers.onResync();
        },
        (error: unknown) => {
          handlers.onError(error);
          retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
          schedule();
        },
      );
    }, retryMs);
    timer.unref();
  };

  await connect();
  return {
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
