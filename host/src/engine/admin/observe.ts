// The host's read-outs and seals: this process's events, the event stream of every replica,
// the operator's counters, the audit log, and values sealed under the host's master key.
// Invariants: queryAudit sees every entry written before it was called (the audit writer flushes
// first, state/store); unseal returns null for anything not sealed by this key for this purpose,
// never throws.
import type { AirlockHost } from "../../contracts/host.ts";
import type { SandboxStats } from "../../isolation/sandbox/types.ts";
import type { Store } from "../../state/store/types.ts";
import type { SecretCodec } from "../catalogue/secrets-api.ts";
import type { EventBus } from "../pipeline/events.ts";

export type ObserveOps = Pick<
  AirlockHost,
  "on" | "replica" | "subscribeEvents" | "stats" | "queryAudit" | "seal" | "unseal"
>;

export function createObserveOps(parts: {
  store: Store;
  events: EventBus;
  membership: Pick<AirlockHost, "replica"> & {
    events: { subscribe: AirlockHost["subscribeEvents"]; streams(): number };
  };
  sandbox: { stats(): SandboxStats };
  codec: SecretCodec;
}): ObserveOps {
  const { store, events, membership, sandbox, codec } = parts;
  return {
    on: (type, listener) => events.on(type, listener),
    replica: membership.replica,
    subscribeEvents: (types, listener) => membership.events.subscribe(types, listener),
    stats: () => ({ sandbox: sandbox.stats(), streams: membership.events.streams() }),
    queryAudit: (query) => store.queryAudit(query),
    seal: (purpose, value) => codec.encrypt(JSON.stringify({ p: purpose, v: value })),
    unseal(purpose, sealed) {
      let opened: { p?: unknown; v?: unknown };
      try {
        opened = JSON.parse(codec.decrypt(sealed)) as { p?: unknown; v?: unknown };
      } catch {
        return null; // not sealed by this key (or altered): the caller treats it as unknown
      }
      return opened !== null && typeof opened === "object" && opened.p === purpose
        ? (opened.v ?? null)
        : null;
    },
  };
}
