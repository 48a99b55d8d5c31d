// CliHost: the part of the host an `airlock` command uses, whether the command opened the host
// itself (the data directory, no host running) or reaches a running host over its admin API
// (admin-client.ts). Contract: a Pick of AirlockHost, so both kinds of host satisfy it by type;
// the session counters of remote servers are left out (they are the serving process's own).
import type { AirlockHost } from "../../contracts/host.ts";

/** What `airlock` commands need of a host, local or running. */
export interface CliHost
  extends Pick<
    AirlockHost,
    | "version"
    | "createAgent"
    | "getAgent"
    | "listAgents"
    | "setKnowledgeLevel"
    | "listAgentTools"
    | "setToolsEnabled"
    | "listSecrets"
    | "setSecrets"
    | "setPluginWorker"
    | "getCodeMode"
    | "setCodeMode"
    | "getPeoplePolicy"
    | "setPeoplePolicy"
    | "deleteAgent"
    | "previewAgentRemoval"
    | "issueToken"
    | "listTokens"
    | "revokeToken"
    | "listApprovals"
    | "decideApproval"
    | "queryAudit"
  > {
  /** The remote-server operations (the session counters are the serving process's own). */
  readonly remote: Omit<AirlockHost["remote"], "sessions">;
  readonly plugins: Pick<
    AirlockHost["plugins"],
    "list" | "install" | "upgrade" | "rollback" | "uninstall" | "trustedKeys" | "forgetTrustedKey"
  >;
  readonly oauth: Pick<AirlockHost["oauth"], "connections" | "connectLink" | "disconnect">;
  readonly snippets: AirlockHost["snippets"];
  readonly models: Pick<
    AirlockHost["models"],
    "setConnection" | "connections" | "removeConnection" | "grant" | "revoke" | "grants"
  >;
}
