import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../store/index.ts";
import { createSecretSource, createSecretWriter, createVault, MASTER_KEY_FILE, openVault } from "./index.ts";

const root = mkdtempSync(join(tmpdir(), "airlock-vault-"));
let n = 0;
const dir = () => join(root, String(n++));
const key = (b: number) => Buffer.alloc(32, b);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("vault", () => {
  it("round-trips a value with a fresh nonce each time and names its key id", () => {
    const v = createVault(key(1));
    const a = v.encrypt("s3cret-välue");
    const b = v.encrypt("s3cret-välue");
    expect(a).not.toBe(b);
    expect(a).not.toContain("s3cret");
    expect(a.split(".")[1]).toBe(v.keyId);
    expect(v.decrypt(a)).toBe("s3cret-välue");
    expect(v.decrypt(v.encrypt(""))).toBe("");
  });

  it("derives one 32-byte key per purpose, fixed per master key and unlike the master key", () => {
    const v = createVault(key(1));
    const cache = v.deriveKey("code-cache");
    expect(cache).toHaveLength(32);
    expect(createVault(key(1)).deriveKey("code-cache").equals(cache)).toBe(true);
    expect(v.deriveKey("other").equals(cache)).toBe(false);
    expect(createVault(key(2)).deriveKey("code-cache").equals(cache)).toBe(false);
    expect(cache.equals(key(1))).toBe(false);
  });

  it("opens only the text it wrote, not another spelling of the same bytes", () => {
    const v = createVault(key(1));
    // 17 sealed bytes (1 of value, 16 of tag) end in a character with 2 spare bits.
    const c = v.encrypt("x");
    const [f, id, nonce, sealed] = c.split(".") as [string, string, string, string];
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(sealed.at(-1) as string);
    const alias = `${sealed.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(alias, "base64url").equals(Buffer.from(sealed, "base64url"))).toBe(true);
    for (const bad of [
      [f, id, nonce, alias].join("."),
      [f, id, nonce, `${sealed.slice(0, 4)}!${sealed.slice(4)}`].join("."),
      [f, id, `${nonce}=`, sealed].join("."),
    ]) {
      expect(() => v.decrypt(bad)).toThrow(
        expect.objectContaining({ code: "AIRLOCK_SECRETS_DECRYPT_FAILED" }),
      );
    }
    expect(v.decrypt(c)).toBe("x");
  });

  it("refuses to decrypt under a different master key with AIRLOCK_SECRETS_DECRYPT_FAILED", () => {
    const c = createVault(key(1)).encrypt("value");
    expect(() => createVault(key(2)).decrypt(c)).toThrow(
      expect.objectContaining({ code: "AIRLOCK_SECRETS_DECRYPT_FAILED" }),
    );
  });

  it("refuses altered ciphertext, nonce, key id or format", () => {
    const v = createVault(key(1));
    const c = v.encrypt("value-to-protect");
    const [f, id, nonce, sealed] = c.split(".") as [string, string, string, string];
    const flip = (s: string) => (s[0] === "A" ? `B${s.slice(1)}` : `A${s.slice(1)}`);
    for (const bad of [
      [f, id, nonce, flip(sealed)].join("."),
      [f, id, flip(nonce), sealed].join("."),
      [f, flip(id), nonce, sealed].join("."),
      ["av2", id, nonce, sealed].join("."),
      [f, id, nonce, sealed.slice(0, 10)].join("."),
      "plaintext",
    ]) {
      expect(() => v.decrypt(bad)).toThrow(
        expect.objectContaining({ code: "AIRLOCK_SECRETS_DECRYPT_FAILED" }),
      );
    }
  });

  it("takes the master key from AIRLOCK_MASTER_KEY and refuses one that is not 32 bytes", () => {
    const env = { AIRLOCK_MASTER_KEY: key(7).toString("base64") };
    expect(openVault({ env }).keyId).toBe(createVault(key(7)).keyId);
    expect(() => openVault({ env: { AIRLOCK_MASTER_KEY: Buffer.alloc(16).toString("base64") } })).toThrow(
      expect.objectContaining({ code: "AIRLOCK_SECRETS_KEY_INVALID" }),
    );
  });

  it("generates <dataDir>/master.key with mode 0600 on first start and reuses it", () => {
    const d = dir();
    const first = openVault({ dataDir: d, env: {} });
    expect(statSync(join(d, MASTER_KEY_FILE)).mode & 0o777).toBe(0o600);
    const c = first.encrypt("kept across restarts");
    expect(openVault({ dataDir: d, env: {} }).decrypt(c)).toBe("kept across restarts");
  });

  it("refuses a key file readable by group or others", () => {
    const d = dir();
    openVault({ dataDir: d, env: {} });
    const file = join(d, MASTER_KEY_FILE);
    chmodSync(file, 0o640);
    expect(() => openVault({ dataDir: d, env: {} })).toThrow(
      expect.objectContaining({ code: "AIRLOCK_SECRETS_KEY_FILE_PERMISSIONS" }),
    );
    const other = join(root, "other.key");
    writeFileSync(other, key(3).toString("base64"), { mode: 0o604 });
    chmodSync(other, 0o604);
    expect(() => openVault({ env: { AIRLOCK_MASTER_KEY_FILE: other } })).toThrow(
      expect.objectContaining({ code: "AIRLOCK_SECRETS_KEY_FILE_PERMISSIONS" }),
    );
    chmodSync(other, 0o600);
    expect(openVault({ env: { AIRLOCK_MASTER_KEY_FILE: other } }).keyId).toBe(createVault(key(3)).keyId);
  });

  it("agrees on one generated key when several processes start together on an empty data dir", async () => {
    const d = dir();
    const script = `import { openVault } from ${JSON.stringify(join(import.meta.dirname, "vault.ts"))};
      process.stdout.write(openVault({ dataDir: ${JSON.stringify(d)}, env: {} }).keyId);`;
    const run = () => promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
    const ids = (await Promise.all([run(), run(), run(), run()])).map((r) => r.stdout);
    expect(new Set(ids).size).toBe(1);
    expect(openVault({ dataDir: d, env: {} }).keyId).toBe(ids[0]);
  });

  it("refuses to start without any key source", () => {
    expect(() => openVault({ env: {} })).toThrow(expect.objectContaining({ code: "AIRLOCK_SECRETS_NO_KEY" }));
  });

  it("keeps no plaintext secret in the SQLite file and reads it back through the secret source", async () => {
    const d = dir();
    const vault = openVault({ dataDir: d, env: {} });
    const store = await openStore({ kind: "sqlite", dataDir: d });
    const plaintext = "sk-live-PLAINTEXT-canary-91c2f";
    await createSecretWriter({ store, vault }).put("agent-a", "api_key", plaintext);
    const source = createSecretSource({ store, vault });
    expect(await source.get("agent-a", "api_key")).toBe(plaintext);
    expect(await source.get("agent-a", "missing")).toBeUndefined();
    expect(await source.get("agent-b", "api_key")).toBeUndefined();
    await store.close();
    for (const f of ["airlock.db", "airlock.db-wal", "audit.db", "audit.db-wal"]) {
      const bytes = (() => {
        try {
          return readFileSync(join(d, f));
        } catch (err) {
          if ((err as { code?: string }).code === "ENOENT") return Buffer.alloc(0);
          throw err;
        }
      })();
      expect(bytes.includes(Buffer.from("PLAINTEXT-canary"))).toBe(false);
    }
    expect(readFileSync(join(d, "airlock.db")).includes(Buffer.from(vault.keyId))).toBe(true);
  });
});
