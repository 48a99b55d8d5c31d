// `airlock mcp --agent <slug>`: serves one agent's tools over MCP on stdin/stdout, for MCP
// clients that spawn their servers (Claude Desktop, IDEs, the MCP SDK's StdioClientTransport).
// Invariants: stdout carries MCP messages only — console output of the whole process is sent
// to stderr before the host opens; the agent must exist (it is not created implicitly).

import { resolve } from "node:path";
import { serveMcpStdio } from "../../mcp/stdio.ts";
import { listOption, parseOptions, stringOption } from "../args.ts";
import { stdioServerEntry } from "../client-config.ts";
import { cliError } from "../errors.ts";
import { userHost } from "../host-location.ts";
import { HOST_OPTIONS, HOST_OPTIONS_HELP, hostOptionsFrom, openHost, requireAgent } from "../open-host.ts";
import type { CliCommand } from "../types.ts";

const OPTIONS = {
  ...HOST_OPTIONS,
  agent: { type: "string" },
  "auto-approve": { type: "boolean" },
  tool: { type: "string", multiple: true },
  group: { type: "string", multiple: true },
  harness: { type: "string", multiple: true },
} as const;

/** The data dir `airlock mcp` would use from here: $AIRLOCK_DATA_DIR, the running host's, ./.airlock-data. */
function exampleDataDir(): string {
  const given = process.env.AIRLOCK_DATA_DIR;
  if (given !== undefined && given !== "") return resolve(given);
  return userHost(process.env)?.dataDir ?? resolve(".airlock-data");
}

/** Routes console.log/info/debug to stderr so nothing but MCP reaches stdout. */
function keepStdoutForMcp(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

export const mcpCommand: CliCommand = {
  path: ["mcp"],
  summary: "Serve one agent's tools over MCP on stdio",
  // A getter: the example entry names this Node, this checkout's bin and the data dir the
  // command would use, so it runs when pasted into a client (client-config.ts).
  get help() {
    return `Usage: airlock mcp --agent <slug> [options]

Serves the agent's enabled tools (named <namespace>__<tool>) over MCP on stdin/stdout.
Tools that are not read-only wait for an operator's approval (admin API) unless
--auto-approve is given.

Options:
  --agent SLUG       The agent whose tools are served (required).
${HOST_OPTIONS_HELP}
  --auto-approve     Run tools that are not read-only without waiting for an approval.
  --tool ID          Serve only this tool (ns:tool); repeatable. Default: every served tool.
  --group NAME       Serve only tools of this category or presentation group; repeatable.
  --harness GROUP    Also serve the harness tools of this group (hidden otherwise); repeatable.

Example (an MCP client's server entry, e.g. Claude Desktop's; paste as printed):
  ${JSON.stringify(stdioServerEntry(["mcp", "--agent", "example", "--data-dir", exampleDataDir()]))}
`;
  },
  async run(args, io) {
    const parsed = parseOptions(args, OPTIONS);
    const agent = stringOption(parsed, "agent");
    if (agent === undefined) throw cliError("AIRLOCK_CLI_USAGE", "missing --agent <slug>");
    const hostOptions = hostOptionsFrom(parsed, io);
    keepStdoutForMcp();
    const host = await openHost(hostOptions);
    try {
      await requireAgent(host, agent);
      const tools = listOption(parsed, "tool").map((t) => t.replace("__", ":"));
      const groups = listOption(parsed, "group");
      const harness = listOption(parsed, "harness");
      await serveMcpStdio(host, agent, {
        ...(parsed.values["auto-approve"] === true ? { autoApprove: true } : {}),
        ...(tools.length > 0 ? { tools } : {}),
        ...(groups.length > 0 ? { groups } : {}),
        ...(harness.length > 0 ? { harness } : {}),
      });
      return 0;
    } finally {
      await host.close();
    }
  },
};
