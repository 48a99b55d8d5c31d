// The part of the host a CLI command uses (CliHost), and that part over a running host's admin
// API, so a command changes a running host through the host itself and never behind its back.
// Contract: every method is one admin API request with the operator token the CLI keeps in
// `<data-dir>/credentials.json`; an API error `{error: {code, message}}` is rethrown as an
// AirlockError with the same code (the CLI prints it as it would a local one); a host that
// does not answer is AIRLOCK_CLI_HOST_UNREACHABLE.
// Layout: admin-call.ts makes the requests, admin-client-areas.ts holds the sub-clients of the
// other areas; CliHost itself is in cli-host.ts.
import type { AirlockHost } from "../../contracts/host.ts";
import { adminCall, agentPath, pluginPath } from "./admin-call.ts";
import {
  modelsClient,
  oauthClient,
  operatorClient,
  pluginsClient,
  remoteClient,
  snippetsClient,
} from "./admin-client-areas.ts";
import type { CliHost } from "./cli-host.ts";

export type { CliHost } from "./cli-host.ts";

export function adminClient(adminUrl: string, token: string, version: string): CliHost {
  const call = adminCall(adminUrl, token);
  return {
    version,
    createAgent: async (slug) =>
      (
        await call<{ agent: Awaited<ReturnType<AirlockHost["createAgent"]>> }>("POST", "/api/agents", {
          slug,
        })
      ).agent,
    async getAgent(slug) {
      const { agents } = await call<{ agents: Awaited<ReturnType<AirlockHost["listAgents"]>> }>(
        "GET",
        "/api/agents",
      );
      return agents.find((a) => a.slug === slug) ?? null;
    },
    listAgents: async () =>
      (await call<{ agents: Awaited<ReturnType<AirlockHost["listAgents"]>> }>("GET", "/api/agents")).agents,
    async setKnowledgeLevel(slug, level) {
      await call("PUT", `${agentPath(slug)}/knowledge`, { level });
    },
    listAgentTools: async (slug) =>
      (
        await call<{ tools: Awaited<ReturnType<AirlockHost["listAgentTools"]>> }>(
          "GET",
          `${agentPath(slug)}/tools`,
        )
      ).tools,
    setToolsEnabled: async (slug, enabled) =>
      (
        await call<{ tools: Awaited<ReturnType<AirlockHost["setToolsEnabled"]>> }>(
          "PATCH",
          `${agentPath(slug)}/tools`,
          { enabled },
        )
      ).tools,
    listSecrets: async (slug) =>
      (
        await call<{ secrets: Awaited<ReturnType<AirlockHost["listSecrets"]>> }>(
          "GET",
          `${agentPath(slug)}/secrets`,
        )
      ).secrets,
    setSecrets: async (slug, values) =>
      (
        await call<{ secrets: Awaited<ReturnType<AirlockHost["setSecrets"]>> }>(
          "PUT",
          `${agentPath(slug)}/secrets`,
          {
            values,
          },
        )
      ).secrets,
    setPluginWorker: (ns, tier) => call("PUT", `${pluginPath(ns)}/worker`, { tier }),
    getCodeMode: (slug) => call("GET", `${agentPath(slug)}/code-mode`),
    setCodeMode: (slug, change) => call("PUT", `${agentPath(slug)}/code-mode`, change),
    getPeoplePolicy: async (slug) =>
      (
        await call<{ policy: Awaited<ReturnType<AirlockHost["getPeoplePolicy"]>> }>(
          "GET",
          `${agentPath(slug)}/people`,
        )
      ).policy,
    setPeoplePolicy: async (slug, patch) =>
      (
        await call<{ policy: Awaited<ReturnType<AirlockHost["setPeoplePolicy"]>> }>(
          "PATCH",
          `${agentPath(slug)}/people`,
          patch,
        )
      ).policy,
    ...operatorClient(call),
    remote: remoteClient(call),
    plugins: pluginsClient(call),
    snippets: snippetsClient(call),
    oauth: oauthClient(call),
    models: modelsClient(call),
  };
}
