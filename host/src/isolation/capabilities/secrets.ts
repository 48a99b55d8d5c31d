// ctx.secrets on the host side: `get(key)` answers only keys the calling tool declared in its
// requiredSecrets; any other key reads as `undefined`, exactly like a declared key left empty.
// (`ctx.secrets.ref(key)` never reaches the host: it is a placeholder built in the isolate.)
// Invariants: a value is read from the SecretSource for the grant's agent only, at call time;
// it is returned to the calling isolate and nowhere else (the bridge audits the key-less action).
// An undeclared key is a soft denial: the plugin reads `undefined` (no oracle), the audit
// records a denial AIRLOCK_SECRETS_UNDECLARED (reason only, never the key's value).

import { denied } from "../bridge/denials.ts";
import { bridgeError } from "../bridge/errors.ts";
import type { Capability } from "../bridge/types.ts";

/** Where secret values come from (host/src/state/secrets/ decrypts them from the store). */
export interface SecretSource {
  get(agent: string, key: string): Promise<string | undefined>;
}

export function createSecretsCapability(options: { source: SecretSource }): Capability {
  return {
    name: "secrets",
    methods: {
      async get(grant, args) {
        const key = args[0];
        if (typeof key !== "string") {
          throw bridgeError("AIRLOCK_BRIDGE_ARGS_INVALID", "ctx.secrets.get(key) takes a string key");
        }
        if (!grant.declaredSecrets.has(key))
          return denied(undefined, "AIRLOCK_SECRETS_UNDECLARED", "key_not_declared");
        const value = await options.source.get(grant.agent, key);
        return typeof value === "string" && value !== "" ? value : undefined;
      },
    },
  };
}
