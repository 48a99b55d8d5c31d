// The executors a call can end in, by the name a catalogue entry gives (CatalogueEntry.executor,
// set when the catalogue reads the entry): `remote` for a tool of a remote MCP server, `sandbox`
// for every other plugin tool (its isolate). The third, `host` (host.ts), answers the tools a run lists in hostTools
// (skills, code mode; not catalogue entries: the execute stage picks it for them). Whatever the
// executor, the call passed the same stages before it and passes the same after it
// (stages/index.ts).
// Invariants: an executor never throws on a tool failure (a Stop or an error result); the
// choice is the entry's, made from its plugin record alone, never from the input.
import type { EntryExecutor } from "../../catalogue/catalogue.ts";
import type { ExecuteRequest, Stop } from "../call-types.ts";
import type { PipelineDeps } from "../deps.ts";
import { executeRemote } from "./remote.ts";
import { executeInSandbox } from "./sandbox.ts";

export type ExecutorKind = EntryExecutor;

export type Executor = (deps: PipelineDeps, req: ExecuteRequest) => Promise<{ result: unknown } | Stop>;

export const EXECUTORS: Readonly<Record<ExecutorKind, Executor>> = {
  sandbox: executeInSandbox,
  remote: executeRemote,
};
