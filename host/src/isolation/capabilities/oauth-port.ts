// What the `oauth` and `models` capabilities need from the engine's OAuth broker and from the
// host's own requests to providers, declared here in the capabilities' layer and implemented
// above it: engine/oauth/broker.ts answers tokens and connect links, engine/oauth/endpoint.ts
// posts to a provider, and engine/oauth/wiring.ts hands both to the capabilities.
// Invariants: types only (this file loads nothing); a token read through the port is for the
// target's agent and end user only; a provider answer carries the status and the parsed body,
// never a header.
import type { OAuthProviderSpec } from "@airlock/sdk";
import type { ConnectTarget } from "../../contracts/oauth.ts";

/** Whose connection (contracts/oauth.ts): an agent, its end user, a plugin and its provider. */
export type { ConnectTarget };

/** The broker as the capabilities see it. */
export interface OAuthTokens {
  /** A link that starts the flow in a browser, valid `linkTtlMs`. */
  connectLink(target: ConnectTarget): string;
  /** A fresh access token for the target, or undefined when not connected (or revoked). */
  accessToken(target: ConnectTarget, provider: OAuthProviderSpec): Promise<string | undefined>;
  /** How long a connect link stays valid, in ms (the message the person reads says so). */
  readonly linkTtlMs: number;
}

/** A provider's answer: its status and its body parsed as JSON (null when it is not JSON). */
export interface ProviderAnswer {
  status: number;
  json: unknown;
}

/**
 * POSTs `body` (form or JSON) with `headers` to a provider's URL through the egress address
 * rules; a failure to reach it is an AirlockError.
 */
export type ProviderPost = (
  url: string,
  body: { form: Record<string, string> } | { json: unknown },
  headers: Record<string, string>,
) => Promise<ProviderAnswer>;
