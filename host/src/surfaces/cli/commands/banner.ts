// What `airlock start` / `airlock serve` print once the host serves: where the console, the admin
// API and each agent's MCP endpoint are, the tokens that work there, what is installed, and MCP
// client configurations to paste. Read from the running host at print time (current knowledge
// levels, every installed plugin, the user's own included), never from what a step remembers.
// Invariants: agents are listed with the one serving most tools first (the client configs are
// for that one); labels are padded to one column; every token printed is valid (credentials.ts);
// no `default` agent is assumed: a host without agents says how to make one.
import { join } from "node:path";
import type { AirlockHost } from "../../../contracts/host.ts";
import { mcpClientConfigs } from "../client-config.ts";
import { CREDENTIALS_FILE, ensureAgentToken, ensureOperatorToken } from "../credentials.ts";
import { LOCATION_FILE, userStateDir } from "../host-location.ts";
import type { BannerLine, RunningContext } from "../start-step.ts";

interface AgentSummary {
  slug: string;
  knowledgeLevel: string;
  served: number;
  enabled: number;
}

/** Agents, the one serving most tools first (then most enabled, then by name). */
export async function agentsByTools(host: AirlockHost): Promise<AgentSummary[]> {
  const out: AgentSummary[] = [];
  for (const agent of await host.listAgents()) {
    const tools = await host.listAgentTools(agent.slug);
    out.push({
      slug: agent.slug,
      knowledgeLevel: agent.knowledgeLevel,
      served: tools.filter((t) => t.served).length,
      enabled: tools.filter((t) => t.enabled).length,
    });
  }
  return out.sort((a, b) => b.served - a.served || b.enabled - a.enabled || a.slug.localeCompare(b.slug));
}

function toolCount(agent: AgentSummary): string {
  const served = agent.served === 1 ? "1 tool" : `${agent.served} tools`;
  if (agent.enabled === 0) return "no tools enabled";
  if (agent.served === agent.enabled) return served;
  return `${served}; ${agent.enabled - agent.served} enabled but missing secrets`;
}

/** Pads every label (with its indent) to one column. */
export function alignLines(lines: readonly BannerLine[]): string[] {
  const labelOf = (l: BannerLine) => `${" ".repeat(l.indent ?? 2)}${l.label}:`;
  const width = Math.max(...lines.map((l) => labelOf(l).length)) + 2;
  return lines.map((l) => `${labelOf(l).padEnd(width)}${l.value}`);
}

async function pluginsLine(ctx: RunningContext): Promise<BannerLine> {
  const plugins = await ctx.host.plugins.list();
  const names = plugins
    .map((p) => {
      const change = ctx.pluginChanges.get(p.namespace);
      return `${p.namespace}@${p.active}${change === undefined ? "" : ` (${change})`}`;
    })
    .sort();
  return { label: "Plugins", value: names.length === 0 ? "none installed" : names.join(", ") };
}

export async function banner(ctx: RunningContext): Promise<string> {
  const url = ctx.server.url;
  const operator = await ensureOperatorToken(ctx.host, ctx.dataDir);
  const lines: BannerLine[] = [
    { label: "Console", value: `${url}/admin  (sign in with the operator token)` },
    { label: "Admin API", value: `${url}/api  (OpenAPI: ${url}/api/openapi.json)` },
    { label: "Operator token", value: operator.token },
    {
      label: "Tokens kept in",
      value: `${join(ctx.dataDir, CREDENTIALS_FILE)} (mode 0600, for the CLI; see docs/api.md)`,
    },
    ...ctx.notes,
    await pluginsLine(ctx),
  ];
  const agents = await agentsByTools(ctx.host);
  const tokens = new Map<string, string>();
  for (const agent of agents) {
    const token = (await ensureAgentToken(ctx.host, ctx.dataDir, agent.slug)).token;
    tokens.set(agent.slug, token);
    lines.push(
      {
        label: `MCP (${agent.slug})`,
        value: `${ctx.server.mcpUrl(agent.slug)}  (${toolCount(agent)}; knowledge: ${agent.knowledgeLevel})`,
      },
      { label: "agent token", value: token, indent: 4 },
    );
  }
  if (agents.length === 0)
    lines.push({ label: "Agents", value: "none yet: `airlock agents create NAME`, then enable tools" });
  const where = join(userStateDir(ctx.io.env), LOCATION_FILE);
  lines.push({
    label: "CLI",
    value: `\`airlock\` commands act on this host from any folder (${where}); on PATH: README "Set-up"`,
  });
  const out = [`Airlock ${ctx.host.version} is running (data: ${ctx.dataDir})`, ...alignLines(lines)];
  const first = agents[0];
  if (first !== undefined) {
    const configs = mcpClientConfigs(
      first.slug,
      ctx.server.mcpUrl(first.slug),
      tokens.get(first.slug) as string,
      ctx.hostOptions.store === undefined ? ctx.dataDir : null,
    );
    out.push("", `Connect an MCP client to ${first.slug} (paste as printed; docs/mcp.md):`);
    for (const config of configs) out.push(`  ${config.label}:`, `    ${config.text}`);
  }
  return [...out, "", "Press Ctrl+C to stop.", ""].join("\n");
}
