// `airlock install` and `airlock plugins …` through the real dispatcher (runCli) on a real
// data directory, trust roots from <data-dir>/trust/*.pub; plus `airlock registry token create`
// through the registry bin in a child process.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  publishDocument,
  samplePluginFiles,
  samplePluginTarball,
  sha512Integrity,
} from "@airlock/sdk/package";
import { generateKeyPair, keyIdOf, signIntegrity } from "@airlock/sdk/signing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLocalRegistry } from "../bootstrap/registry-process.ts";
import { runCli } from "../main.ts";
import type { CliIO } from "../types.ts";
import { installCommand } from "./install.ts";
import { pluginsCommands } from "./plugins.ts";
import { registryCommands } from "./registry.ts";

const commands = [installCommand, ...pluginsCommands, ...registryCommands];
let dir: string;
let out: string[];
let err: string[];
let io: CliIO;
const key = generateKeyPair();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "airlock-cli-plugins-"));
  out = [];
  err = [];
  io = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env: {}, cwd: dir };
  mkdirSync(join(dir, "data", "trust"), { recursive: true });
  writeFileSync(join(dir, "data", "trust", "publisher.pub"), key.publicKeyPem);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function signedTarball(version: string, signed = true): string {
  const bytes = samplePluginTarball({ namespace: "weather", version });
  const path = join(dir, `weather-${version}.tgz`);
  writeFileSync(path, bytes);
  if (signed)
    writeFileSync(`${path}.sig`, JSON.stringify(signIntegrity(sha512Integrity(bytes), key.privateKeyPem)));
  return path;
}

const run = (...argv: string[]) => runCli([...argv, "--data-dir", join(dir, "data")], io, commands);

describe("airlock install / plugins", () => {
  it("installs, lists, rolls back and uninstalls through the CLI", async () => {
    expect(await run("install", signedTarball("1.0.0"))).toBe(0);
    expect(out.join("")).toContain("Installed weather@1.0.0");
    signedTarball("1.1.0");
    expect(await run("install", "./weather-1.1.0.tgz")).toBe(0);
    out = [];
    expect(await run("plugins", "list", "--json")).toBe(0);
    const listed = JSON.parse(out.join("")) as Array<{ namespace: string; active: string; previous: string }>;
    expect(listed).toMatchObject([{ namespace: "weather", active: "1.1.0", previous: "1.0.0" }]);
    expect(await run("plugins", "rollback", "weather")).toBe(0);
    expect(out.join("")).toContain("Rolled weather back to 1.0.0");
    out = [];
    expect(await run("plugins", "uninstall", "weather", "--purge")).toBe(0);
    expect(out.join("")).toMatch(/Uninstalled weather \((1\.0\.0, 1\.1\.0|1\.1\.0, 1\.0\.0)\)/);
    expect(out.join("")).toContain("purged:");
  });

  it("refuses an unsigned .tgz with the installer's code unless --allow-unsigned", async () => {
    const path = signedTarball("1.0.0", false);
    expect(await run("install", path)).toBe(1);
    expect(err.join("")).toContain("AIRLOCK_INSTALL_UNSIGNED");
    expect(await run("install", path, "--allow-unsigned")).toBe(0);
    expect(out.join("")).toContain("signer: none");
  });

  it("reports a usage error for a missing spec and a rollback with nothing to return to", async () => {
    expect(await run("install")).toBe(2);
    expect(await run("install", signedTarball("1.0.0"))).toBe(0);
    expect(await run("plugins", "rollback", "weather")).toBe(1);
    expect(err.join("")).toContain("AIRLOCK_INSTALL_NO_PREVIOUS");
  });

  it("prints full help for each command", async () => {
    for (const c of commands) {
      out = [];
      expect(await runCli([...c.path, "--help"], io, commands)).toBe(0);
      expect(out.join("")).toContain("Usage:");
      expect(out.join("")).toContain("Example");
    }
  });

  it("issues a registry publish token through the registry bin", async () => {
    expect(
      await runCli(
        ["registry", "token", "create", "--owner", "acme", "--data-dir", join(dir, "reg")],
        io,
        commands,
      ),
    ).toBe(0);
    expect(out.join("")).toMatch(/^airlock_reg_[A-Za-z0-9_-]{43}\n$/);
  });
});

describe("airlock install from a registry", () => {
  it("installs name@range from a registry child process, then upgrades", async () => {
    const registry = await startLocalRegistry({ dir: join(dir, "reg"), owner: "acme" });
    try {
      for (const version of ["1.0.0", "1.1.0", "2.0.0-beta.1"]) {
        const bytes = samplePluginTarball({ namespace: "weather", version });
        const doc = publishDocument(bytes, samplePluginFiles({ namespace: "weather", version }).parsed, [
          signIntegrity(sha512Integrity(bytes), key.privateKeyPem),
        ]);
        const res = await fetch(`${registry.url}/weather`, {
          method: "PUT",
          headers: { authorization: `Bearer ${registry.token}`, "content-type": "application/json" },
          body: JSON.stringify(doc),
        });
        expect(res.status).toBe(201);
      }
      expect(await run("install", "weather@~1.0.0", "--registry", registry.url)).toBe(0);
      expect(out.join("")).toContain("Installed weather@1.0.0");
      out = [];
      expect(await run("plugins", "upgrade", "weather")).toBe(0);
      expect(out.join("")).toContain("Upgraded weather from 1.0.0 to 1.1.0");
      out = [];
      expect(await run("plugins", "upgrade", "weather", "^1.0.0")).toBe(0);
      expect(out.join("")).toContain("already at 1.1.0");
    } finally {
      await registry.close();
    }
  });
});

describe("a key trusted at install is remembered for its namespace", () => {
  it("upgrades with the key given to install, and explains an unknown signer with the fix", async () => {
    rmSync(join(dir, "data", "trust", "publisher.pub"));
    const pub = join(dir, "me.pub");
    writeFileSync(pub, key.publicKeyPem);
    const other = generateKeyPair();
    const registry = await startLocalRegistry({ dir: join(dir, "reg"), owner: "acme" });
    const publish = async (version: string, privateKeyPem: string) => {
      const bytes = samplePluginTarball({ namespace: "weather", version });
      const doc = publishDocument(bytes, samplePluginFiles({ namespace: "weather", version }).parsed, [
        signIntegrity(sha512Integrity(bytes), privateKeyPem),
      ]);
      const res = await fetch(`${registry.url}/weather`, {
        method: "PUT",
        headers: { authorization: `Bearer ${registry.token}`, "content-type": "application/json" },
        body: JSON.stringify(doc),
      });
      expect(res.status).toBe(201);
    };
    try {
      await publish("1.0.0", key.privateKeyPem);
      expect(await run("install", "weather@1.0.0", "--registry", registry.url, "--trust-key", pub)).toBe(0);
      await publish("1.1.0", key.privateKeyPem);
      expect(await run("plugins", "upgrade", "weather")).toBe(0);
      expect(out.join("")).toContain("Upgraded weather from 1.0.0 to 1.1.0");
      // The key was trusted for weather only (kept in the store), not for the whole host.
      expect(readdirSync(join(dir, "data", "trust"))).toEqual([]);

      await publish("1.2.0", other.privateKeyPem);
      err = [];
      expect(await run("plugins", "upgrade", "weather")).toBe(1);
      const message = err.join("");
      expect(message).toContain("error: AIRLOCK_INSTALL_UNKNOWN_SIGNER: weather: this version is signed by ");
      expect(message).toContain(`${keyIdOf(other.publicKeyPem)}, and it trusts ${keyIdOf(key.publicKeyPem)}`);
      expect(message).toContain("--trust-key <file.pub>");

      // the kept key, listed and forgotten: the next upgrade no longer trusts it
      out = [];
      expect(await run("plugins", "keys", "weather")).toBe(0);
      expect(out.join("")).toContain(keyIdOf(key.publicKeyPem));
      expect(await run("plugins", "keys", "weather", "--forget", keyIdOf(key.publicKeyPem))).toBe(0);
      expect(out.join("")).toContain(`weather no longer trusts ${keyIdOf(key.publicKeyPem)}`);
      await publish("1.3.0", key.privateKeyPem);
      err = [];
      expect(await run("plugins", "upgrade", "weather")).toBe(1);
      expect(err.join("")).toContain("AIRLOCK_INSTALL_UNKNOWN_SIGNER");
      err = [];
      expect(await run("plugins", "keys", "weather", "--forget", keyIdOf(key.publicKeyPem))).toBe(1);
      expect(err.join("")).toContain("AIRLOCK_INSTALL_KEY_NOT_TRUSTED");
    } finally {
      await registry.close();
    }
  });
});
