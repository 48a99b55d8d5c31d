// Every `airlock` command, in the order `airlock --help` lists them. To add a command, import
// its CliCommand (one file under commands/) and add it to this list; main.ts does the rest.
import type { CliCommand } from "../types.ts";
import { agentsCommands } from "./agents.ts";
import { approvalsCommands } from "./approvals.ts";
import { auditCommand } from "./audit.ts";
import { backupCommand, restoreCommand } from "./backup.ts";
import { brokerCommands } from "./broker.ts";
import { installCommand } from "./install.ts";
import { mcpCommand } from "./mcp.ts";
import { pluginsCommands } from "./plugins.ts";
import { registryCommands } from "./registry.ts";
import { remoteCommands } from "./remote.ts";
import { serveCommand, startCommand } from "./start.ts";
import { tokensCommands } from "./tokens.ts";

export const COMMANDS: CliCommand[] = [
  startCommand,
  serveCommand,
  mcpCommand,
  installCommand,
  ...pluginsCommands,
  ...remoteCommands,
  ...agentsCommands,
  ...tokensCommands,
  ...approvalsCommands,
  auditCommand,
  backupCommand,
  restoreCommand,
  ...brokerCommands,
  ...registryCommands,
];
