import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
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

  it("refuses a source folder (one holding a package.json) as its data dir, and writes nothing there", async () => {
    writeFileSync(join(dir, "package.json"), "{}\n");
    expect(await runRegistryCli(["token", "create", "--owner", "acme", "--data-dir", dir], io())).toBe(1);
    expect(await runRegistryCli(["serve", "--port", "0", "--data-dir", dir], io())).toBe(1);
    expect(err.join("")).toContain("error: AIRLOCK_REGISTRY_DATA_DIR_INVALID: ");
    expect(existsSync(join(dir, "registry.db"))).toBe(false);
    expect(existsSync(join(dir, "tarballs"))).toBe(false);
  });

  it("says in one line, with its code and the --port hint, that the port is taken", async () => {
    const busy = createServer();
    await new Promise<void>((done) => busy.listen(0, "127.0.0.1", () => done()));
    const port = String((busy.address() as { port: number }).port);
    try {
      expect(await runRegistryCli(["serve", "--port", port, "--data-dir", dir], io())).toBe(1);
    } finally {
      await new Promise<void>((done) => busy.close(() => done()));
    }
    expect(err.join("")).toBe(
      `error: AIRLOCK_REGISTRY_PORT_IN_USE: 127.0.0.1:${port} is already in use — pass --port N (0 = any free port)\n`,
    );
  });
});
