// The admin client's areas beyond the agents: remote servers, plugins, snippets, OAuth
// connections and model access, each a sub-client over one AdminCall (admin-call.ts).
// Contract: each method is one admin API request and answers what the host's own method answers
// (the body's payload field where the route wraps it), so a command cannot tell a running host
// from a local one. Invariants: path segments are URI-encoded; optional options are sent only
// when given (an absent install option stays absent, not false).
import type { AirlockHost, InstallOptions } from "../../contracts/host.ts";
import { type AdminCall, agentPath, pluginPath, remotePath } from "./admin-call.ts";
import type { CliHost } from "./cli-host.ts";

function installBody(options: InstallOptions | undefined): Record<string, unknown> {
  return {
    ...(options?.allowUnsigned === undefined ? {} : { allowUnsigned: options.allowUnsigned }),
    ...(options?.allowDowngrade === undefined ? {} : { allowDowngrade: options.allowDowngrade }),
    ...(options?.allowPrerelease === undefined ? {} : { allowPrerelease: options.allowPrerelease }),
    ...(options?.trustKeys === undefined || options.trustKeys.length === 0
      ? {}
      : { trustKeys: options.trustKeys }),
  };
}

/** What an operator does daily: tokens, deleting an agent, approvals and the audit log. */
export function operatorClient(
  call: AdminCall,
): Pick<
  CliHost,
  | "deleteAgent"
  | "previewAgentRemoval"
  | "issueToken"
  | "listTokens"
  | "revokeToken"
  | "listApprovals"
  | "decideApproval"
  | "queryAudit"
> {
  return {
    deleteAgent: (slug) => call("DELETE", agentPath(slug)),
    previewAgentRemoval: (slug) => call("GET", `${agentPath(slug)}/removal`),
    async issueToken(role, agent, label) {
      const out = await call<{ token: string; record: { id: string } }>("POST", "/api/tokens", {
        role,
        ...(agent === undefined ? {} : { agent }),
        ...(label === undefined ? {} : { label: label.slice(0, 200) }),
      });
      return { id: out.record.id, token: out.token };
    },
    listTokens: async (agent) =>
      (
        await call<{ tokens: Awaited<ReturnType<AirlockHost["listTokens"]>> }>(
          "GET",
          `/api/tokens${agent === undefined ? "" : `?agent=${encodeURIComponent(agent)}`}`,
        )
      ).tokens,
    async revokeToken(id) {
      // The API answers {id, revoked}; the listing before it is what the local host answers.
      const view = (await this.listTokens()).find((t) => t.id === id);
      await call("DELETE", `/api/tokens/${encodeURIComponent(id)}`);
      return view ?? { id, role: "agent", agent: null, label: "", createdAt: "", prefix: "" };
    },
    listApprovals: async (agent) =>
      (
        await call<{ approvals: Awaited<ReturnType<AirlockHost["listApprovals"]>> }>(
          "GET",
          `/api/approvals${agent === undefined ? "" : `?agent=${encodeURIComponent(agent)}`}`,
        )
      ).approvals,
    async decideApproval(id, decision) {
      await call("POST", `/api/approvals/${encodeURIComponent(id)}`, {
        approve: decision.approve,
        ...(decision.reason === undefined ? {} : { reason: decision.reason }),
      });
    },
    async queryAudit(query) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) {
        if (value !== undefined) params.set(key, String(value));
      }
      const text = params.toString();
      return (
        await call<{ entries: Awaited<ReturnType<AirlockHost["queryAudit"]>> }>(
          "GET",
          `/api/audit${text === "" ? "" : `?${text}`}`,
        )
      ).entries;
    },
  };
}

/** Remote MCP servers: /api/remote. */
export function remoteClient(call: AdminCall): CliHost["remote"] {
  return {
    install: (url, options) => call("POST", "/api/remote", { url, ...options }),
    list: async () =>
      (await call<{ servers: Awaited<ReturnType<AirlockHost["remote"]["list"]>> }>("GET", "/api/remote"))
        .servers,
    status: (ns, options) =>
      call(
        "GET",
        `${remotePath(ns)}${options?.asAgent === undefined ? "" : `?asAgent=${encodeURIComponent(options.asAgent)}`}`,
      ),
    review: (ns, options) => call("POST", `${remotePath(ns)}/review`, options ?? {}),
    setReadOnly: (ns, tool, readOnly) =>
      call("PUT", `${remotePath(ns)}/tools/${encodeURIComponent(tool)}/read-only`, { readOnly }),
  };
}

/** Plugins: /api/plugins (install options as the body). */
export function pluginsClient(call: AdminCall): CliHost["plugins"] {
  return {
    list: async () =>
      (await call<{ plugins: Awaited<ReturnType<AirlockHost["plugins"]["list"]>> }>("GET", "/api/plugins"))
        .plugins,
    install: (spec, options) => call("POST", "/api/plugins", { spec, ...installBody(options) }),
    upgrade: (ns, range, options) =>
      call("POST", `${pluginPath(ns)}/upgrade`, {
        ...(range === undefined ? {} : { range }),
        ...installBody(options),
      }),
    rollback: (ns) => call("POST", `${pluginPath(ns)}/rollback`),
    uninstall: (ns, options) =>
      call("DELETE", `${pluginPath(ns)}${options?.purge === true ? "?purge=true" : ""}`),
    trustedKeys: async (ns) =>
      (
        await call<{ keys: Awaited<ReturnType<AirlockHost["plugins"]["trustedKeys"]>> }>(
          "GET",
          `${pluginPath(ns ?? "")}/keys`,
        )
      ).keys,
    forgetTrustedKey: (ns, keyId) => call("DELETE", `${pluginPath(ns)}/keys/${encodeURIComponent(keyId)}`),
  };
}

/** An agent's code-mode snippets. */
export function snippetsClient(call: AdminCall): CliHost["snippets"] {
  return {
    list: async (slug) =>
      (
        await call<{ snippets: Awaited<ReturnType<AirlockHost["snippets"]["list"]>> }>(
          "GET",
          `${agentPath(slug)}/snippets`,
        )
      ).snippets,
    get: (slug, name) => call("GET", `${agentPath(slug)}/snippets/${encodeURIComponent(name)}`),
    save: (slug, name, snippet) =>
      call("PUT", `${agentPath(slug)}/snippets/${encodeURIComponent(name)}`, snippet),
    promote: (slug, name, promoted = true) =>
      call("POST", `${agentPath(slug)}/snippets/${encodeURIComponent(name)}/promote`, { promoted }),
    delete: async (slug, name) =>
      (await call<{ deleted: boolean }>("DELETE", `${agentPath(slug)}/snippets/${encodeURIComponent(name)}`))
        .deleted,
  };
}

/** An agent's brokered OAuth connections. */
export function oauthClient(call: AdminCall): CliHost["oauth"] {
  return {
    connections: async (slug) =>
      (
        await call<{ connections: Awaited<ReturnType<AirlockHost["oauth"]["connections"]>> }>(
          "GET",
          `${agentPath(slug)}/oauth`,
        )
      ).connections,
    connectLink: async (slug, ns, provider, subject) =>
      (
        await call<{ url: string }>("POST", `${agentPath(slug)}/oauth/${encodeURIComponent(provider)}/link`, {
          plugin: ns,
          ...(subject === undefined ? {} : { subject }),
        })
      ).url,
    disconnect: async (slug, provider, subject) =>
      (
        await call<{ disconnected: boolean }>(
          "DELETE",
          `${agentPath(slug)}/oauth/${encodeURIComponent(provider)}${subject === undefined ? "" : `?subject=${encodeURIComponent(subject)}`}`,
        )
      ).disconnected,
  };
}

/** Model connections and their grants to an agent's plugins. */
export function modelsClient(call: AdminCall): CliHost["models"] {
  return {
    setConnection: ({ name, ...body }) => call("PUT", `/api/models/${encodeURIComponent(name)}`, body),
    connections: async () =>
      (
        await call<{ connections: Awaited<ReturnType<AirlockHost["models"]["connections"]>> }>(
          "GET",
          "/api/models",
        )
      ).connections,
    removeConnection: async (name) =>
      (await call<{ removed: boolean }>("DELETE", `/api/models/${encodeURIComponent(name)}`)).removed,
    grant: (slug, ns, body) => call("PUT", `${agentPath(slug)}/models/${encodeURIComponent(ns)}`, body),
    revoke: async (slug, ns) =>
      (await call<{ revoked: boolean }>("DELETE", `${agentPath(slug)}/models/${encodeURIComponent(ns)}`))
        .revoked,
    grants: async (slug) =>
      (
        await call<{ grants: Awaited<ReturnType<AirlockHost["models"]["grants"]>> }>(
          "GET",
          `${agentPath(slug)}/models`,
        )
      ).grants,
  };
}
