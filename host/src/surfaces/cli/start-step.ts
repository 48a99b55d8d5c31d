// The contract of a bootstrap step of `airlock start` (commands/start.ts runs them, in the order
// of START_BOOTSTRAP; bootstrap/index.ts is one). A step may prepare things before the host opens
// (`beforeHost`, e.g. start a local registry and point registryUrl at it) and set things up once
// the host is serving (`afterHost`, e.g. install plugins, create an agent).
// Invariants: types only (this file loads nothing); a step's cleanups registered with
// `onShutdown` run in reverse order at shutdown, before the host closes; a step that throws stops
// startup with its error.
import type { HostOptions } from "../../config.ts";
import type { AirlockHost } from "../../contracts/host.ts";
import type { AdminServer } from "../http/server.ts";
import type { Parsed } from "./args.ts";
import type { CliIO } from "./types.ts";

/** A banner line: `label:` padded to the banner's column, then the value (commands/banner.ts). */
export interface BannerLine {
  label: string;
  value: string;
  /** Spaces before the label. Default 2. */
  indent?: number;
}

export interface StartContext {
  io: CliIO;
  parsed: Parsed;
  dataDir: string;
  /** Steps may adjust these in `beforeHost` (e.g. point registryUrl at a local registry). */
  hostOptions: HostOptions;
  /** Extra banner lines, printed after the URLs and tokens. */
  notes: BannerLine[];
  /** What a step did to a plugin this start ("installed", "upgraded"), shown beside it in the banner. */
  pluginChanges: Map<string, string>;
  /** Registers a cleanup run at shutdown (reverse order), before the host closes. */
  onShutdown(cleanup: () => Promise<void>): void;
}

export interface RunningContext extends StartContext {
  host: AirlockHost;
  server: AdminServer;
}

export interface BootstrapStep {
  name: string;
  beforeHost?(ctx: StartContext): Promise<void>;
  afterHost?(ctx: RunningContext): Promise<void>;
}
