import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasCode } from "@airlock/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../store/index.ts";
import type { Store } from "../store/types.ts";
import { authenticate, hashToken, issueToken, tokenDisplayPrefix } from "./tokens.ts";

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "airlock-tokens-"));
  store = await openStore({ kind: "sqlite", dataDir: dir });
  await store.ensureAgent("ada");
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("tokens", () => {
  it("issues recognisable operator and agent tokens that authenticate to their records", async () => {
    const op = await issueToken(store, { role: "operator", label: "ci" });
    const ag = await issueToken(store, { role: "agent", agent: "ada" });
    expect(op.token).toMatch(/^alk_op_[A-Za-z0-9_-]{43}$/);
    expect(ag.token).toMatch(/^alk_ag_[A-Za-z0-9_-]{43}$/);
    expect(await authenticate(store, op.token)).toMatchObject({
      id: op.id,
      role: "operator",
      agent: null,
      label: "ci",
    });
    expect(await authenticate(store, ag.token)).toMatchObject({ id: ag.id, role: "agent", agent: "ada" });
  });

  it("keeps a display prefix of 4 random characters after the role prefix, never more", async () => {
    const ag = await issueToken(store, { role: "agent", agent: "ada", label: "laptop" });
    expect(ag.record.prefix).toBe(ag.token.slice(0, "alk_ag_".length + 4));
    expect((await store.listTokens()).find((t) => t.id === ag.id)?.prefix).toBe(ag.record.prefix);
    expect(tokenDisplayPrefix("not-a-token")).toBe("");
  });

  it("stores only the hash: the store finds the record by hash, never by the clear token", async () => {
    const op = await issueToken(store, { role: "operator" });
    expect(await store.findToken(op.token)).toBeNull();
    expect((await store.findToken(hashToken(op.token)))?.id).toBe(op.id);
  });

  it("rejects malformed, unknown, re-prefixed and revoked tokens without throwing", async () => {
    const ag = await issueToken(store, { role: "agent", agent: "ada" });
    expect(await authenticate(store, "")).toBeNull();
    expect(await authenticate(store, "Bearer whatever")).toBeNull();
    expect(await authenticate(store, `alk_op_${"A".repeat(43)}`)).toBeNull();
    expect(await authenticate(store, ag.token.replace("alk_ag_", "alk_op_"))).toBeNull();
    await store.deleteToken(ag.id);
    expect(await authenticate(store, ag.token)).toBeNull();
  });

  it("refuses an agent token without an existing agent and an operator token naming one", async () => {
    for (const input of [
      { role: "agent" as const },
      { role: "agent" as const, agent: "ghost" },
      { role: "operator" as const, agent: "ada" },
    ]) {
      const error = await issueToken(store, input).then(
        () => null,
        (e: unknown) => e,
      );
      expect(hasCode(error, "AIRLOCK_AUTH_AGENT_REQUIRED")).toBe(true);
    }
  });
});
