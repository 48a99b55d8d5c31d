// What every admin module (host/src/engine/admin/*.ts) is built from: the store, the loaded
// catalogue, the admin audit, and the two change hooks the composition root (host.ts) wires.
// Invariants: an operation that changes what an agent is served calls `announce` after the
// rows are written (raised on this replica, told to the others); an operation that reads the
// catalogue calls `fresh` first, so a change another replica made is seen.
import type { ToolsChangeReason } from "../../contracts/host.ts";
import type { Store } from "../../state/store/types.ts";
import type { AdminAudit } from "../catalogue/admin-audit.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";

export interface AdminContext {
  store: Store;
  catalogue: Catalogue;
  /** Writes one `kind: "admin"` audit entry (never fails the action). */
  admin: AdminAudit;
  /** A change made through this host: `tools.changed` raised here and announced to the other replicas. */
  announce(agent: string | null, reason: ToolsChangeReason): void;
  /** Picks up a catalogue change another replica (or process) made, before reading it. */
  fresh(): Promise<void>;
}
