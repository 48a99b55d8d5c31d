// The host's token operations: issue an operator or agent token, authenticate one, list them,
// revoke one.
// Invariants: a token's secret is returned once, when issued, and never audited nor listed (a
// listing carries its id, role, agent, label, creation time and first characters); issuing and
// revoking are audited (token.issue, token.revoke), failed or not; revoking an unknown id is
// AIRLOCK_AUTH_TOKEN_NOT_FOUND, and a revoked token is refused from the next request on.
import { AirlockError } from "@airlock/sdk";
import type { TokenView } from "../../contracts/admin-ops.ts";
import type { AirlockHost } from "../../contracts/host.ts";
import { AUTH_ERRORS } from "../../state/auth/errors.ts";
import { authenticate, issueToken, TOKEN_PREFIXES } from "../../state/auth/tokens.ts";
import type { TokenRecord } from "../../state/store/types.ts";
import type { AdminContext } from "./context.ts";

export type TokenOps = Pick<AirlockHost, "issueToken" | "authenticate" | "listTokens" | "revokeToken">;

export function tokenView(t: TokenRecord): TokenView {
  return {
    id: t.id,
    role: t.role,
    agent: t.agent,
    label: t.label,
    createdAt: t.createdAt,
    // The token's own first characters (role prefix + 4); a token issued before they were kept
    // shows its role prefix only.
    prefix: t.prefix ?? TOKEN_PREFIXES[t.role],
  };
}

export function createTokenOps(ctx: Pick<AdminContext, "store" | "admin">): TokenOps {
  const { store, admin } = ctx;
  return {
    async issueToken(role, agent, label) {
      const input = {
        role,
        ...(agent === undefined ? {} : { agent }),
        ...(label === undefined ? {} : { label }),
      };
      const fields = { agent: agent ?? null, details: { role } };
      const issued = await issueToken(store, input).catch(async (error: unknown) => {
        await admin("token.issue", fields, error);
        throw error;
      });
      await admin("token.issue", { ...fields, details: { role, id: issued.id } });
      return { id: issued.id, token: issued.token };
    },
    authenticate: (token) => authenticate(store, token),
    async listTokens(agent) {
      const all = await store.listTokens();
      return (agent === undefined ? all : all.filter((t) => t.agent === agent)).map(tokenView);
    },
    async revokeToken(id) {
      const found = (await store.listTokens()).find((t) => t.id === id);
      if (found === undefined) {
        const error = new AirlockError(
          "AIRLOCK_AUTH_TOKEN_NOT_FOUND",
          `no token has id ${JSON.stringify(id)}`,
          {
            status: AUTH_ERRORS.AIRLOCK_AUTH_TOKEN_NOT_FOUND.status,
          },
        );
        await admin("token.revoke", { agent: null, details: { tokenId: id } }, error);
        throw error;
      }
      await store.deleteToken(id);
      await admin("token.revoke", {
        agent: found.agent,
        details: { tokenId: id, role: found.role, agent: found.agent },
      });
      return tokenView(found);
    },
  };
}
