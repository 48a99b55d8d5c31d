// Public entry of @airlock/host: the library API. Surfaces (HTTP admin API, MCP, CLI) and
// embedders use createHost and the AirlockHost interface; error catalogues are exported so a
// surface can map codes to statuses and document them.
export { AUTH_ERRORS } from "./auth/errors.ts";
export { TOKEN_PREFIXES, tokenRole } from "./auth/tokens.ts";
export { canonicalToolId } from "./catalogue/catalogue.ts";
export { CATALOGUE_ERRORS } from "./catalogue/errors.ts";
export type { HostOptions, SandboxOption, StoreOption, TrustOptions } from "./config.ts";
export type { ResolvedAddress, Resolver } from "./egress/types.ts";
export { createHost } from "./host.ts";
export { assembleHost, type HostParts } from "./host-api.ts";
export type * from "./host-types.ts";
export { PIPELINE_ERRORS } from "./pipeline/errors.ts";
