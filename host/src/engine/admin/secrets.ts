// The host's secret operations: an agent's secrets as read back (sensitive ones masked), set,
// delete.
// Invariants: values are sealed by the codec before they are stored and never audited (the
// entries name the keys); a change is audited (secrets.set, secrets.delete) and announced
// (reason "secrets") — a delete only when something was deleted.
import type { AirlockHost } from "../../contracts/host.ts";
import { audited } from "../catalogue/admin-audit.ts";
import { deleteSecret, listSecrets, type SecretCodec, setSecrets } from "../catalogue/secrets-api.ts";
import type { AdminContext } from "./context.ts";

export type SecretOps = Pick<AirlockHost, "listSecrets" | "setSecrets" | "deleteSecret">;

export function createSecretOps(ctx: AdminContext, codec: SecretCodec): SecretOps {
  const { store, catalogue, admin, announce, fresh } = ctx;
  return {
    async listSecrets(agent) {
      await fresh();
      return listSecrets(store, catalogue, codec, agent);
    },
    async setSecrets(agent, values) {
      await fresh();
      const keys = Object.keys(values ?? {});
      const view = await audited(admin, "secrets.set", { agent, details: { keys } }, () =>
        setSecrets(store, catalogue, codec, agent, values),
      );
      announce(agent, "secrets");
      return view;
    },
    async deleteSecret(agent, key) {
      const deleted = await audited(admin, "secrets.delete", { agent, details: { key } }, () =>
        deleteSecret(store, agent, key),
      );
      if (deleted) announce(agent, "secrets");
      return deleted;
    },
  };
}
