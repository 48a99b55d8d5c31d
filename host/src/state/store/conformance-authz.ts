// Conformance tests of the authorization server's rows (store/authz-types.ts): clients, grants
// (listed newest first, revoked once), and hashed secrets that expire and are redeemed at most
// once. Registered by storeConformance (./conformance.ts).
import { expect, it } from "vitest";
import type { AuthGrantRecord, AuthSecretRecord } from "./authz-types.ts";
import type { Store } from "./types.ts";

const NOW = 1_800_000_000_000;

const grant = (id: string, over: Partial<AuthGrantRecord> = {}): AuthGrantRecord => ({
  id,
  clientId: "alc_1",
  clientName: "Desk client",
  agent: "a",
  resource: "https://airlock.example/mcp/a",
  createdAt: "2026-12-01T10:00:00.000Z",
  revokedAt: null,
  ...over,
});

const secret = (hash: string, over: Partial<AuthSecretRecord> = {}): AuthSecretRecord => ({
  hash,
  kind: "code",
  grantId: "alg_1",
  data: { clientId: "alc_1", redirectUri: "http://127.0.0.1:7777/cb", challenge: "abc" },
  expiresAt: NOW + 60_000,
  usedAt: null,
  ...over,
});

export function authServerConformance(s: () => Store): void {
  it("keeps a registered client with its exact redirect URIs", async () => {
    const client = {
      id: "alc_1",
      name: "Desk client",
      redirectUris: ["http://127.0.0.1:7777/cb", "https://app.example/cb?x=1"],
      createdAt: "2026-12-01T10:00:00.000Z",
    };
    expect(await s().authServer.countClients()).toBe(0);
    await s().authServer.putClient(client);
    expect(await s().authServer.getClient("alc_1")).toEqual(client);
    expect(await s().authServer.getClient("alc_2")).toBeNull();
    await s().authServer.putClient({ ...client, id: "alc_2" });
    expect(await s().authServer.countClients()).toBe(2);
  });

  it("lists an agent's grants newest first and revokes a grant once", async () => {
    const { authServer } = s();
    await authServer.putGrant(grant("alg_1"));
    await authServer.putGrant(grant("alg_2", { createdAt: "2026-12-01T11:00:00.000Z" }));
    await authServer.putGrant(grant("alg_3", { agent: "b" }));
    expect((await authServer.listGrants("a")).map((g) => g.id)).toEqual(["alg_2", "alg_1"]);
    expect(await authServer.revokeGrant("alg_1", "2026-12-01T12:00:00.000Z")).toBe(true);
    expect(await authServer.revokeGrant("alg_1", "2026-12-01T13:00:00.000Z")).toBe(false);
    expect(await authServer.revokeGrant("alg_9", "2026-12-01T13:00:00.000Z")).toBe(false);
    expect(await authServer.getGrant("alg_1")).toEqual(
      grant("alg_1", { revokedAt: "2026-12-01T12:00:00.000Z" }),
    );
    expect((await authServer.getGrant("alg_2"))?.revokedAt).toBeNull();
  });

  it("finds a secret by its hash until it expires and redeems it only once", async () => {
    const { authServer } = s();
    await authServer.putSecret(secret("h1"));
    await authServer.putSecret(secret("h2", { kind: "access", data: null, expiresAt: NOW - 1 }));
    expect(await authServer.findSecret("h1", NOW)).toEqual(secret("h1"));
    expect(await authServer.findSecret("h2", NOW)).toBeNull();
    expect(await authServer.useSecret("h2", NOW)).toBe(false);
    const both = await Promise.all([authServer.useSecret("h1", NOW), authServer.useSecret("h1", NOW)]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(await authServer.findSecret("h1", NOW)).toEqual(secret("h1", { usedAt: NOW }));
    expect(await authServer.findSecret("h1", NOW + 60_000)).toBeNull();
    expect(await authServer.pruneSecrets(NOW)).toBe(1);
    expect(await authServer.pruneSecrets(NOW + 60_000)).toBe(1);
    expect(await authServer.findSecret("h1", NOW)).toBeNull();
  });
}
