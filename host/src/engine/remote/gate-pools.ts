// The connection pools of one gated fetch (gate-fetch.ts): one undici Agent per set of checked
// addresses of a host, each connecting only to those addresses (a pinned lookup), so a DNS answer
// that changes between the check and the connection cannot move the request elsewhere.
// Invariants: TLS certificates are always verified (with the operator's extra CAs, if any);
// undici's idle timers are off (the operation's signal bounds every wait); at most MAX_POOLS pools
// are kept, the oldest closed past that; close() destroys every pool.
import type { Agent } from "undici";
import { pinnedLookup } from "../../isolation/egress/resolve.ts";

/** Connection pools kept per gate (one per set of checked addresses); the oldest is closed past this. */
const MAX_POOLS = 4;

export interface GatePools {
  /** The pool that connects `hostname` to exactly `addresses`. */
  agentFor(
    AgentClass: typeof import("undici").Agent,
    hostname: string,
    addresses: Parameters<typeof pinnedLookup>[1],
  ): Agent;
  close(): Promise<void>;
}

export function createGatePools(options: {
  connectTimeoutMs: number;
  ca: readonly string[] | undefined;
}): GatePools {
  const agents = new Map<string, Agent>();
  return {
    agentFor(
      AgentClass: typeof import("undici").Agent,
      hostname: string,
      addresses: Parameters<typeof pinnedLookup>[1],
    ): Agent {
      const key = `${hostname}|${JSON.stringify(addresses)}`;
      let agent = agents.get(key);
      if (agent === undefined) {
        agent = new AgentClass({
          connect: {
            lookup: pinnedLookup(hostname, addresses),
            timeout: options.connectTimeoutMs,
            rejectUnauthorized: true,
            ...(options.ca === undefined ? {} : { ca: [...options.ca] }),
          },
          // The call's signal bounds every wait; undici's own idle timers would only reword it.
          headersTimeout: 0,
          bodyTimeout: 0,
          // A call's SSE answer stays open while the client POSTs its reply to a server request.
          connections: 4,
        });
        agents.set(key, agent);
        if (agents.size > MAX_POOLS) {
          const [oldKey, old] = agents.entries().next().value as [string, Agent];
          agents.delete(oldKey);
          void old.close().catch((closing: unknown) => void closing); // its requests are over or failing
        }
      }
      return agent;
    },
    async close() {
      const closing = [...agents.values()].map((a) =>
        a.destroy().catch((alreadyClosed: unknown) => void alreadyClosed),
      );
      agents.clear();
      await Promise.all(closing);
    },
  };
}
