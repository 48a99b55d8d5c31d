import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasCode } from "@airlock/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createVault, type Vault } from "../../state/secrets/index.ts";
import { openStore } from "../../state/store/index.ts";
import type { Store } from "../../state/store/types.ts";
import { installFixture } from "../pipeline/test-fixtures.ts";
import { type Catalogue, createCatalogue } from "./catalogue.ts";
import { deleteSecret, listSecrets, setSecrets } from "./secrets-api.ts";

let dir: string;
let store: Store;
let vault: Vault;
let catalogue: Catalogue;
const TOKEN = "sk-live-0123456789abcdef";

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "airlock-secrets-"));
  store = await openStore({ kind: "sqlite", dataDir: dir });
  vault = createVault(randomBytes(32));
  await store.ensureAgent("ada");
  await installFixture(store, dir, {
    namespace: "mail",
    tools: [
      {
        name: "send",
        code: "async () => 'sent'",
        requiredSecrets: [
          { key: "smtp_password", type: "text", optional: false, sensitive: true },
          { key: "region", type: "select", choices: ["eu", "us"], optional: false, sensitive: false },
          { key: "signature", type: "text", optional: true, sensitive: false },
        ],
      },
    ],
  });
  catalogue = createCatalogue(store);
  await catalogue.reload();
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return hasCode(error) ? error.code : undefined;
}

describe("secrets API", () => {
  it("lists every declared key, masking sensitive values and showing readable ones", async () => {
    const views = await setSecrets(store, catalogue, vault, "ada", { smtp_password: TOKEN, region: "eu" });
    const byKey = new Map(views.map((v) => [v.key, v]));
    expect(byKey.get("smtp_password")).toEqual({
      key: "smtp_password",
      set: true,
      sensitive: true,
      value: "••••ef",
      tools: ["mail:send"],
      spec: { type: "text", optional: false },
    });
    expect(byKey.get("region")).toMatchObject({
      set: true,
      sensitive: false,
      value: "eu",
      spec: { type: "select", choices: ["eu", "us"], optional: false },
    });
    expect(byKey.get("signature")).toMatchObject({ set: false, value: null });
    expect(JSON.stringify(views)).not.toContain(TOKEN);
  });

  it("stores only vault ciphertext", async () => {
    await setSecrets(store, catalogue, vault, "ada", { smtp_password: TOKEN });
    const record = await store.getSecret("ada", "smtp_password");
    expect(record?.ciphertext).not.toContain(TOKEN);
    expect(vault.decrypt(record?.ciphertext ?? "")).toBe(TOKEN);
  });

  it("refuses an undeclared key or a value outside a select's choices, writing nothing of the batch", async () => {
    expect(
      await codeOf(setSecrets(store, catalogue, vault, "ada", { smtp_password: TOKEN, nope: "x" })),
    ).toBe("AIRLOCK_SECRET_UNKNOWN_KEY");
    expect(
      await codeOf(setSecrets(store, catalogue, vault, "ada", { smtp_password: TOKEN, region: "mars" })),
    ).toBe("AIRLOCK_SECRET_INVALID_CHOICE");
    expect(await store.listSecrets("ada")).toEqual([]);
  });

  it("clears a key set to the empty string and deletes one by key", async () => {
    await setSecrets(store, catalogue, vault, "ada", { smtp_password: TOKEN, region: "us" });
    await setSecrets(store, catalogue, vault, "ada", { region: "" });
    expect((await store.listSecrets("ada")).map((r) => r.key)).toEqual(["smtp_password"]);
    expect(await deleteSecret(store, "ada", "smtp_password")).toBe(true);
    expect(await deleteSecret(store, "ada", "smtp_password")).toBe(false);
    expect((await listSecrets(store, catalogue, vault, "ada")).every((v) => !v.set)).toBe(true);
  });

  it("lists a value no active tool declares (its plugin uninstalled) with no spec and no tool, masked", async () => {
    await store.putSecret({
      agent: "ada",
      key: "left_behind",
      ciphertext: vault.encrypt("kept-value-42"),
      updatedAt: new Date().toISOString(),
    });
    const view = (await listSecrets(store, catalogue, vault, "ada")).find((v) => v.key === "left_behind");
    expect(view).toEqual({
      key: "left_behind",
      set: true,
      sensitive: true,
      value: "••••42",
      tools: [],
      spec: null,
    });
    expect(await codeOf(setSecrets(store, catalogue, vault, "ada", { left_behind: "x" }))).toBe(
      "AIRLOCK_SECRET_UNKNOWN_KEY",
    );
  });

  it("refuses an unknown agent", async () => {
    expect(await codeOf(listSecrets(store, catalogue, vault, "ghost"))).toBe("AIRLOCK_AGENT_NOT_FOUND");
  });
});
