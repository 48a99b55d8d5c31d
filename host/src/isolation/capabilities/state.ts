// ctx.state on the host side: per (agent, conversation, plugin namespace) key/value state,
// stored as JSON through the Store, with a cap on the namespace's total per conversation.
// Invariants: the scope comes from the grant only; keys are 1–256 character strings; values are
// JSON data (`undefined` is refused: use delete); a set over the cap changes nothing and throws
// AIRLOCK_STATE_TOO_LARGE.

import type { Store } from "../../state/store/types.ts";
import { bridgeError } from "../bridge/errors.ts";
import type { CallGrant, Capability } from "../bridge/types.ts";

export type StateStore = Pick<Store, "getState" | "setState" | "deleteState" | "listStateKeys">;

/** Default cap on one plugin's state in one conversation (bytes of JSON). */
export const DEFAULT_MAX_STATE_BYTES = 256 * 1024;

function keyOf(args: readonly unknown[]): string {
  const key = args[0];
  if (typeof key !== "string" || key.length === 0 || key.length > 256) {
    throw bridgeError("AIRLOCK_STATE_INVALID", "a state key is a string of 1 to 256 characters");
  }
  return key;
}

export function createStateCapability(options: { store: StateStore; maxStateBytes?: number }): Capability {
  const { store } = options;
  const max = options.maxStateBytes ?? DEFAULT_MAX_STATE_BYTES;
  const scope = (g: CallGrant) => [g.agent, g.conversationId, g.namespace] as const;
  return {
    name: "state",
    methods: {
      async get(grant, args) {
        const json = await store.getState(...scope(grant), keyOf(args));
        return json === null ? undefined : JSON.parse(json);
      },
      async set(grant, args) {
        const key = keyOf(args);
        let json: string | undefined;
        try {
          json = JSON.stringify(args[1]);
        } catch (error) {
          throw bridgeError("AIRLOCK_STATE_INVALID", "a state value must be JSON data", undefined, error);
        }
        if (json === undefined) {
          throw bridgeError(
            "AIRLOCK_STATE_INVALID",
            "a state value must be JSON data (use delete to remove a key)",
          );
        }
        const bytes = Buffer.byteLength(json, "utf8") + Buffer.byteLength(key, "utf8");
        if (bytes > max || !(await store.setState(...scope(grant), key, json, max))) {
          throw bridgeError(
            "AIRLOCK_STATE_TOO_LARGE",
            `this plugin's state in this conversation is capped at ${max} bytes`,
            {
              limit: max,
            },
          );
        }
        return undefined;
      },
      async delete(grant, args) {
        await store.deleteState(...scope(grant), keyOf(args));
        return undefined;
      },
      async keys(grant) {
        return store.listStateKeys(...scope(grant));
      },
    },
  };
}
