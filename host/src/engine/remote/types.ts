// The library API of remote MCP servers installed as plugins (`host.remote`): install a server
// under a namespace, see its pinned definitions and what the server lists now, review a change,
// mark a tool read-only. The admin API (routes/remote.ts) and the CLI (`airlock remote …`,
// `airlock install mcp+…`) are thin layers over it; so is the console. The types are declared
// in contracts/remote.ts (contracts import nothing above them); engine/remote/ implements them.
export type {
  RemoteChange,
  RemoteInstallOptions,
  RemoteOAuthOptions,
  RemoteReviewOptions,
  RemoteServers,
  RemoteServerView,
  RemoteStatus,
  RemoteToolView,
} from "../../contracts/remote.ts";
