// Public entry of @airlock/host: the library API. Surfaces (HTTP admin API, MCP, CLI) and
// embedders use createHost and the AirlockHost interface; error catalogues are exported so a
// surface can map codes to statuses and document them.

export type { HostOptions, SandboxOption, StoreOption, TrustOptions } from "./config.ts";
export type * from "./contracts/host.ts";
export { canonicalToolId } from "./engine/catalogue/catalogue.ts";
export { CATALOGUE_ERRORS } from "./engine/catalogue/errors.ts";
export { PIPELINE_ERRORS } from "./engine/pipeline/errors.ts";
export { createHost } from "./host.ts";
export type { ResolvedAddress, Resolver } from "./isolation/egress/types.ts";
export { AUTH_ERRORS } from "./state/auth/errors.ts";
export { TOKEN_PREFIXES, tokenRole } from "./state/auth/tokens.ts";
