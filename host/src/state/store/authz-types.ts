// The store's part for the host's own OAuth 2.1 authorization server (host/src/surfaces/http/authz/):
// registered clients (RFC 7591, public), grants (one per consent: a client, an agent and that
// agent's MCP URL as the audience) and the grant's secrets — authorization codes, access tokens
// and refresh tokens — kept only as sha256 hashes.
// Invariants: no clear secret crosses this interface; useSecret marks a secret used at most once
// (one conditional UPDATE, so racing replicas cannot both redeem one code or one refresh token);
// a revoked grant stays revoked (revokeGrant never clears revokedAt); findSecret answers nothing
// past its expiry.
import type { AuthClientRecord, AuthGrantRecord, AuthSecretKind } from "../../contracts/records.ts";

export type { AuthClientRecord, AuthGrantRecord, AuthSecretKind };

export interface AuthSecretRecord {
  /** sha256 (hex) of the clear secret. */
  hash: string;
  kind: AuthSecretKind;
  grantId: string;
  /** What a code carries until it is redeemed (client, redirect URI, PKCE challenge…); else null. */
  data: Record<string, string> | null;
  /** ms since the epoch. */
  expiresAt: number;
  /** ms since the epoch when it was redeemed (codes, refresh tokens); null while unused. */
  usedAt: number | null;
}

export interface AuthServerStore {
  putClient(client: AuthClientRecord): Promise<void>;
  getClient(id: string): Promise<AuthClientRecord | null>;
  /** How many clients are registered (the registration cap counts them). */
  countClients(): Promise<number>;
  putGrant(grant: AuthGrantRecord): Promise<void>;
  getGrant(id: string): Promise<AuthGrantRecord | null>;
  /** The agent's grants, newest first, revoked ones included. */
  listGrants(agent: string): Promise<AuthGrantRecord[]>;
  /** Revokes an active grant; true when this call revoked it (false: unknown or already revoked). */
  revokeGrant(id: string, at: string): Promise<boolean>;
  putSecret(secret: AuthSecretRecord): Promise<void>;
  /** The secret of this hash while it has not expired at `now` (used or not); null otherwise. */
  findSecret(hash: string, now: number): Promise<AuthSecretRecord | null>;
  /** Marks an unexpired, unused secret used at `now`; true for the one call that did. */
  useSecret(hash: string, now: number): Promise<boolean>;
  /** Deletes secrets expired at `now`; returns how many. */
  pruneSecrets(now: number): Promise<number>;
}
