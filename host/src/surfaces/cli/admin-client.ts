// The part of the host a CLI command uses (CliHost), and that part over a running host's admin
// API, so a command changes a running host through the host itself and never behind its back.
// Contract: every method is one admin API request with the operator token the CLI keeps in
// `<data-dir>/credentials.json`; an API error `{error: {code, message}}` is rethrown as an
// AirlockError with the same code (the CLI prints it as it would a local one); a host that
// does not answer is AIRLOCK_CLI_HOST_UNREACHABLE.
import { AirlockError } from "@airlock/sdk/errors";
import type { AirlockHost, InstallOptions } from "../../contracts/host.ts";
import { cliError } from "./errors.ts";

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
  > {
  /** The remote-server operations (the session counters are the serving process's own). */
  readonly remote: Omit<AirlockHost["remote"], "sessions">;
  readonly plugins: Pick<AirlockHost["plugins"], "list" | "install" | "upgrade" | "rollback" | "uninstall">;
  readonly oauth: Pick<AirlockHost["oauth"], "connections" | "connectLink" | "disconnect">;
  readonly snippets: AirlockHost["snippets"];
  readonly models: Pick<
    AirlockHost["models"],
    "setConnection" | "connections" | "removeConnection" | "grant" | "revoke" | "grants"
  >;
}

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

export function adminClient(adminUrl: string, token: string, version: string): CliHost {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${adminUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (cause) {
      throw new AirlockError(
        "AIRLOCK_CLI_HOST_UNREACHABLE",
        `the host at ${adminUrl} did not answer (${(cause as Error).message}); is it still running?`,
        { status: 503, cause },
      );
    }
    const text = await response.text();
    const json = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
    if (!response.ok) {
      const error = json.error as { code?: string; message?: string; details?: unknown } | undefined;
      if (typeof error?.code === "string") {
        throw new AirlockError(error.code, error.message ?? error.code, {
          status: response.status,
          ...(error.details === undefined ? {} : { details: error.details as Record<string, unknown> }),
        });
      }
      throw cliError(
        "AIRLOCK_CLI_HOST_UNREACHABLE",
        `the host at ${adminUrl} answered HTTP ${response.status}`,
      );
    }
    return json as T;
  }
  const agent = (slug: string) => `/api/instances/${encodeURIComponent(slug)}`;
  const plugin = (ns: string) => `/api/plugins/${encodeURIComponent(ns)}`;
  const remote = (ns: string) => `/api/remote/${encodeURIComponent(ns)}`;
  return {
    version,
    createAgent: async (slug) =>
      (
        await call<{ agent: Awaited<ReturnType<AirlockHost["createAgent"]>> }>("POST", "/api/instances", {
          slug,
        })
      ).agent,
    async getAgent(slug) {
      const { agents } = await call<{ agents: Awaited<ReturnType<AirlockHost["listAgents"]>> }>(
        "GET",
        "/api/instances",
      );
      return agents.find((a) => a.slug === slug) ?? null;
    },
    listAgents: async () =>
      (await call<{ agents: Awaited<ReturnType<AirlockHost["listAgents"]>> }>("GET", "/api/instances"))
        .agents,
    async setKnowledgeLevel(slug, level) {
      await call("PUT", `${agent(slug)}/knowledge`, { level });
    },
    listAgentTools: async (slug) =>
      (
        await call<{ tools: Awaited<ReturnType<AirlockHost["listAgentTools"]>> }>(
          "GET",
          `${agent(slug)}/tools`,
        )
      ).tools,
    setToolsEnabled: async (slug, enabled) =>
      (
        await call<{ tools: Awaited<ReturnType<AirlockHost["setToolsEnabled"]>> }>(
          "PATCH",
          `${agent(slug)}/tools`,
          { enabled },
        )
      ).tools,
    listSecrets: async (slug) =>
      (
        await call<{ secrets: Awaited<ReturnType<AirlockHost["listSecrets"]>> }>(
          "GET",
          `${agent(slug)}/secrets`,
        )
      ).secrets,
    setSecrets: async (slug, values) =>
      (
        await call<{ secrets: Awaited<ReturnType<AirlockHost["setSecrets"]>> }>(
          "PUT",
          `${agent(slug)}/secrets`,
          {
            values,
          },
        )
      ).secrets,
    setPluginWorker: (ns, tier) => call("PUT", `${plugin(ns)}/worker`, { tier }),
    getCodeMode: (slug) => call("GET", `${agent(slug)}/code-mode`),
    setCodeMode: (slug, change) => call("PUT", `${agent(slug)}/code-mode`, change),
    getPeoplePolicy: async (slug) =>
      (
        await call<{ policy: Awaited<ReturnType<AirlockHost["getPeoplePolicy"]>> }>(
          "GET",
          `${agent(slug)}/people`,
        )
      ).policy,
    setPeoplePolicy: async (slug, patch) =>
      (
        await call<{ policy: Awaited<ReturnType<AirlockHost["setPeoplePolicy"]>> }>(
          "PATCH",
          `${agent(slug)}/people`,
          patch,
        )
      ).policy,
    remote: {
      install: (url, options) => call("POST", "/api/remote", { url, ...options }),
      list: async () =>
        (await call<{ servers: Awaited<ReturnType<AirlockHost["remote"]["list"]>> }>("GET", "/api/remote"))
          .servers,
      status: (ns, options) =>
        call(
          "GET",
          `${remote(ns)}${options?.asAgent === undefined ? "" : `?asAgent=${encodeURIComponent(options.asAgent)}`}`,
        ),
      review: (ns, options) => call("POST", `${remote(ns)}/review`, options ?? {}),
      setReadOnly: (ns, tool, readOnly) =>
        call("PUT", `${remote(ns)}/tools/${encodeURIComponent(tool)}/read-only`, { readOnly }),
    },
    plugins: {
      list: async () =>
        (await call<{ plugins: Awaited<ReturnType<AirlockHost["plugins"]["list"]>> }>("GET", "/api/plugins"))
          .plugins,
      install: (spec, options) => call("POST", "/api/plugins", { spec, ...installBody(options) }),
      upgrade: (ns, range, options) =>
        call("POST", `${plugin(ns)}/upgrade`, {
          ...(range === undefined ? {} : { range }),
          ...installBody(options),
        }),
      rollback: (ns) => call("POST", `${plugin(ns)}/rollback`),
      uninstall: (ns, options) =>
        call("DELETE", `${plugin(ns)}${options?.purge === true ? "?purge=true" : ""}`),
    },
    snippets: {
      list: async (slug) =>
        (
          await call<{ snippets: Awaited<ReturnType<AirlockHost["snippets"]["list"]>> }>(
            "GET",
            `${agent(slug)}/snippets`,
          )
        ).snippets,
      get: (slug, name) => call("GET", `${agent(slug)}/snippets/${encodeURIComponent(name)}`),
      save: (slug, name, snippet) =>
        call("PUT", `${agent(slug)}/snippets/${encodeURIComponent(name)}`, snippet),
      promote: (slug, name, promoted = true) =>
        call("POST", `${agent(slug)}/snippets/${encodeURIComponent(name)}/promote`, { promoted }),
      delete: async (slug, name) =>
        (await call<{ deleted: boolean }>("DELETE", `${agent(slug)}/snippets/${encodeURIComponent(name)}`))
          .deleted,
    },
    oauth: {
      connections: async (slug) =>
        (
          await call<{ connections: Awaited<ReturnType<AirlockHost["oauth"]["connections"]>> }>(
            "GET",
            `${agent(slug)}/oauth`,
          )
        ).connections,
      connectLink: async (slug, ns, provider, subject) =>
        (
          await call<{ url: string }>("POST", `${agent(slug)}/oauth/${encodeURIComponent(provider)}/link`, {
            plugin: ns,
            ...(subject === undefined ? {} : { subject }),
          })
        ).url,
      disconnect: async (slug, provider, subject) =>
        (
          await call<{ disconnected: boolean }>(
            "DELETE",
            `${agent(slug)}/oauth/${encodeURIComponent(provider)}${subject === undefined ? "" : `?subject=${encodeURIComponent(subject)}`}`,
          )
        ).disconnected,
    },
    models: {
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
      grant: (slug, ns, body) => call("PUT", `${agent(slug)}/models/${encodeURIComponent(ns)}`, body),
      revoke: async (slug, ns) =>
        (await call<{ revoked: boolean }>("DELETE", `${agent(slug)}/models/${encodeURIComponent(ns)}`))
          .revoked,
      grants: async (slug) =>
        (
          await call<{ grants: Awaited<ReturnType<AirlockHost["models"]["grants"]>> }>(
            "GET",
            `${agent(slug)}/models`,
          )
        ).grants,
    },
  };
}
