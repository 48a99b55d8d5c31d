// The `fetch` capability factory, listed here beside the other capability factories.
// It lives in host/src/isolation/egress/ (the egress gate: address policy, destination rules, pinned
// resolution, redirects, secret injection); this file only re-exports its public surface.
export { FETCH_ERRORS } from "../egress/errors.ts";
export { createFetchCapability, FETCH_AUDIT_ACTION, FETCH_CAPABILITY } from "../egress/fetch-capability.ts";
export type {
  EgressPolicy,
  FetchCapabilityOptions,
  FetchLimits,
  FetchResult,
  HostPolicy,
  Resolver,
} from "../egress/types.ts";
