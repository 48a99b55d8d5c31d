// The store's part for the host's own OAuth 2.1 authorization server: its types are the
// contract of `host.authorization` (contracts/admin-ops.ts), which the store implements.
export type {
  AuthClientRecord,
  AuthGrantRecord,
  AuthSecretKind,
  AuthSecretRecord,
  AuthServerStore,
} from "../../contracts/admin-ops.ts";
