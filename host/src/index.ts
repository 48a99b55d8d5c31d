// Public entry of @airlock/host: the library API. Surfaces (HTTP admin API, MCP, CLI) and
// embedders use createHost and the AirlockHost interface; error catalogues are exported so a
// surface can map codes to statuses and document them, and so are the few pure values a
// surface needs to speak its protocol (limit ranges, stream event names, elicitation form
// checks, the wire form of a subject). Surfaces reach the engine through this file and
// contracts/ only (test/conformance/layering.test.ts).

export type { HostOptions, SandboxOption, StoreOption, TrustOptions } from "./config.ts";
export type * from "./contracts/host.ts";
export { canonicalToolId } from "./engine/catalogue/catalogue.ts";
export { CATALOGUE_ERRORS } from "./engine/catalogue/errors.ts";
export { CODE_MODE_LIMIT_RANGES } from "./engine/code-mode/settings.ts";
export { subjectFromWire } from "./engine/oauth/subject.ts";
export { PEOPLE_ERRORS } from "./engine/people/errors.ts";
export { checkContent, checkForm } from "./engine/people/form-schema.ts";
export { PIPELINE_ERRORS } from "./engine/pipeline/errors.ts";
export { createHost } from "./host.ts";
export type { ResolvedAddress, Resolver } from "./isolation/egress/types.ts";
export { AUTH_ERRORS } from "./state/auth/errors.ts";
export { TOKEN_PREFIXES, tokenRole } from "./state/auth/tokens.ts";
export {
  BACKUP_ERRORS,
  type BackupManifest,
  type BackupResult,
  createBackup,
  type RestoreResult,
  restoreBackup,
} from "./state/backup/index.ts";
export { STREAM_EVENT_TYPES } from "./state/cluster/events.ts";
