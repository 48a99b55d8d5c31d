// The host's token operations: issue an operator or agent token, authenticate one.
// Invariants: the token's secret is returned once and never audited (token.issue records the
// role, the agent and the token's id); a failed issue is audited with its error code.
import type { AirlockHost } from "../../contracts/host.ts";
import { authenticate, issueToken } from "../../state/auth/tokens.ts";
import type { AdminContext } from "./context.ts";

export type TokenOps = Pick<AirlockHost, "issueToken" | "authenticate">;

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
  };
}
