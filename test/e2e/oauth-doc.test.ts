// docs/oauth.md's operator commands, run exactly as printed (every `sh` block, line by line,
// comments dropped) through the real `airlock` dispatcher on a data dir that holds what the doc
// assumes: an agent `support-bot` and a plugin `gh-tools` declaring the doc's `github` provider
// (installed from a tarball), $OPENAI_API_KEY and $AIRLOCK_PUBLIC_URL set, and, before the
// disconnect line, the github connection it removes, stored as a finished OAuth flow leaves it
// (the flow itself is proven in oauth-broker.test.ts; disconnecting nothing is an error). Each
// command must exit 0; the doc and this test cannot drift apart.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildPlugin } from "@airlock/sdk/build";
import { samplePluginTarball } from "@airlock/sdk/package";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../host/src/state/store/index.ts";
import { COMMANDS } from "../../host/src/surfaces/cli/commands/index.ts";
import { runCli } from "../../host/src/surfaces/cli/main.ts";
import { withHost } from "../../host/src/surfaces/cli/open-host.ts";
import type { CliIO } from "../../host/src/surfaces/cli/types.ts";

const doc = readFileSync(resolve(import.meta.dirname, "../../docs/oauth.md"), "utf8");
const lines = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => (m[1] as string).split("\n"))
  .map((l) => l.replace(/\s+#.*$/, "").trim())
  .filter((l) => l !== "");

let dir: string;
const out: string[] = [];
const err: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "airlock-oauth-doc-"));
  const tarball = samplePluginTarball({
    namespace: "gh-tools",
    version: "1.0.0",
    patch: (m) => {
      m.egress = [{ host: "api.github.com" }];
      m.oauth = [
        {
          name: "github",
          authorizationUrl: "https://github.com/login/oauth/authorize",
          tokenUrl: "https://github.com/login/oauth/access_token",
          scopes: ["read:user"],
          apiHosts: ["api.github.com"],
        },
      ];
      m.models = { reason: "summarises the issues it finds" };
    },
  });
  await withHost({ dataDir: join(dir, "data"), sandbox: { mode: "in-process" } }, async (host) => {
    await host.plugins.installTarball(tarball, "/tmp/gh-tools.tgz", { allowUnsigned: true });
    await host.createAgent("support-bot");
    await host.setSecrets("support-bot", { github_oauth_client_id: "Iv1.0123456789abcdef" });
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/oauth.md's plugin example", () => {
  it("builds with the SDK, and its manifest lists the provider and the models reason", async () => {
    const source = /```ts\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(source).toBeDefined();
    const pluginDir = join(dir, "gh-tools");
    await mkdir(join(pluginDir, "src"), { recursive: true });
    await writeFile(
      join(pluginDir, "package.json"),
      JSON.stringify({ name: "gh-tools", version: "1.0.0", private: true, type: "module" }),
    );
    await writeFile(join(pluginDir, "src", "index.ts"), source as string);
    const { manifest } = await buildPlugin(pluginDir);
    expect(manifest.oauth).toEqual([
      {
        name: "github",
        authorizationUrl: "https://github.com/login/oauth/authorize",
        tokenUrl: "https://github.com/login/oauth/access_token",
        scopes: ["read:user"],
        apiHosts: ["api.github.com"],
      },
    ]);
    expect(manifest.models).toEqual({ reason: "summarises the issues it finds" });
  }, 60_000);
});

/** The connection a finished flow leaves for support-bot and github (the provider has no revocation endpoint). */
async function storeConnection(): Promise<void> {
  const store = await openStore({ kind: "sqlite", dataDir: join(dir, "data") });
  try {
    await store.putOAuthToken({
      agent: "support-bot",
      subject: "",
      provider: "github",
      plugin: "gh-tools",
      ciphertext: "av1.not-read-without-a-revocation-endpoint",
      scopes: ["read:user"],
      expiresAt: null,
      updatedAt: new Date().toISOString(),
    });
  } finally {
    await store.close();
  }
}

describe("docs/oauth.md commands", () => {
  it("has the commands this test runs", () => {
    expect(lines.length).toBeGreaterThanOrEqual(7);
    expect(lines.every((l) => l.startsWith("airlock "))).toBe(true);
  });

  it("runs each one as printed", async () => {
    const io: CliIO = {
      stdout: (t) => void out.push(t),
      stderr: (t) => void err.push(t),
      env: {
        AIRLOCK_DATA_DIR: join(dir, "data"),
        AIRLOCK_PUBLIC_URL: "https://airlock.example.com",
        OPENAI_API_KEY: "sk-doc-canary-55aa",
      },
      cwd: dir,
    };
    for (const line of lines) {
      if (line.startsWith("airlock oauth disconnect support-bot github")) await storeConnection();
      const code = await runCli(line.split(/\s+/).slice(1), io, COMMANDS);
      expect(code, `${line}\n${err.join("")}`).toBe(0);
    }
    const said = out.join("");
    expect(said).toMatch(/https:\/\/airlock\.example\.com\/oauth\/connect\/\S+/);
    expect(said).toContain("No OAuth connections for support-bot.");
    expect(said).toContain("gh-tools\topenai\t0 calls, 0 tokens this day");
    expect(said + err.join("")).not.toContain("sk-doc-canary-55aa");
  });
});
