import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runRegistryCli } from "./cli.ts";
import { RegistryStorage } from "./storage.ts";

let dir: string;
let out: string[];
let err: string[];
const io = () => ({
  stdout: (t: string) => void out.push(t),
  stderr: (t: string) => void err.push(t),
  env: {},
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-registry-cli-"));
  out = [];
  err = [];
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("airlock-registry CLI", () => {
  it("issues a token that authenticates its owner, and stores only its hash", async () => {
    expect(await runRegistryCli(["token", "create", "--owner", "acme", "--data-dir", dir], io())).toBe(0);
    const token = out.join("").trim();
    expect(token).toMatch(/^airlock_reg_/);
    const storage = new RegistryStorage(dir);
    try {
      expect(storage.findToken(token)?.owner).toBe("acme");
      expect(storage.findToken(`${token}x`)).toBeNull();
    } finally {
      storage.close();
    }
    const db = readFileSync(join(dir, "registry.db")).toString("latin1");
    const wal = (() => {
      try {
        return readFileSync(join(dir, "registry.db-wal")).toString("latin1");
      } catch (e) {
        if ((e as { code?: string }).code === "ENOENT") return "";
        throw e;
      }
    })();
    expect(db.includes(token) || wal.includes(token)).toBe(false);
  });

  it("refuses a token without an owner or with a malformed one", async () => {
    expect(await runRegistryCli(["token", "create", "--data-dir", dir], io())).toBe(2);
    expect(await runRegistryCli(["token", "create", "--owner", "Not Valid", "--data-dir", dir], io())).toBe(
      1,
    );
    expect(err.join("")).toContain("AIRLOCK_REGISTRY_BAD_REQUEST");
  });

  it("prints help, and refuses unknown commands and bad ports", async () => {
    expect(await runRegistryCli(["--help"], io())).toBe(0);
    expect(out.join("")).toContain("airlock-registry serve");
    expect(await runRegistryCli(["publish"], io())).toBe(2);
    expect(await runRegistryCli(["serve", "--port", "99999", "--data-dir", dir], io())).toBe(2);
  });
});
