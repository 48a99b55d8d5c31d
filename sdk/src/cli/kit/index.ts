// @airlock/sdk/cli-kit: what the three Airlock CLIs (airlock, airlock-plugin, airlock-registry)
// share so they speak with one voice: the dispatcher (commands by path, group help, "did you
// mean"), strict option parsing with option suggestions, the one-line error format and the exit
// statuses. Node-only (node:util): never imported by the part of the SDK bundled into plugins.
export { type OptionSpec, type ParsedArgs, parseCommandArgs, type UsageError } from "./parse.ts";
export {
  commandList,
  type Program,
  type ProgramCommand,
  type ProgramIO,
  runProgram,
  usageLine,
} from "./program.ts";
export { EXIT, EXIT_STATUS_HELP, errorLine, isUsageCode, type ReportIO, reportFailure } from "./report.ts";
export { closest, didYouMean, editDistance } from "./suggest.ts";
