// The whole path a user takes, through the real CLIs (child processes on Node 24) and real
// servers on loopback: a plugin author scaffolds, builds, packs, signs and publishes a plugin
// to a registry; an operator installs it and two first-party plugins (render, upload) and notes
// from that registry with the author's key trusted, enables tools for an agent, sets a secret,
// serves the host; an MCP client (the SDK's Client over streamable HTTP) calls the tools, hands
// an artifact from render to upload, which writes it to knowledge that notes reads back; then
// the author ships 0.2.0, the operator upgrades, rolls back and uninstalls.
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Daemon, daemon, ok, ROOT } from "./cli-support.ts";

const STEP = 120_000;
const UPLOAD_TOKEN = "journey-upload-token-77";
type Content = Array<{ type: string; text?: string }>;
const textOf = (r: unknown): string =>
  (((r as { content?: unknown }).content ?? []) as Content).map((p) => p.text ?? "").join("");

describe("the user journey", () => {
  let work: string;
  let registry: Daemon | undefined;
  let host: Daemon | undefined;
  let registryUrl = "";
  let publishToken = "";
  let dataDir = "";
  let mcpUrl = "";
  let agentToken = "";
  const author = () => join(work, "hello");
  const host$ = (...args: string[]) =>
    ok("airlock", [...args, "--data-dir", dataDir], { env: { AIRLOCK_SANDBOX: "in-process" } });

  async function mcp<T>(body: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ name: "journey", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${agentToken}` } },
    });
    await client.connect(transport);
    try {
      return await body(client);
    } finally {
      await client.close();
    }
  }
  const toolNames = () => mcp(async (c) => (await c.listTools()).tools.map((t) => t.name));
  const greet = () =>
    mcp(async (c) =>
      textOf(await c.callTool({ name: "hello__greet", arguments: { name: "Ada", excited: true } })),
    );

  async function publish(dir: string): Promise<void> {
    await ok("airlock-plugin", ["build", dir]);
    await ok("airlock-plugin", [
      "publish",
      dir,
      "--registry",
      registryUrl,
      "--token",
      publishToken,
      "--key",
      join(work, "keys/acme.key"),
    ]);
  }

  async function startHost(): Promise<void> {
    host = await daemon(
      "airlock",
      ["serve", "--data-dir", dataDir, "--port", "0", "--sandbox", "workers", "--auto-approve"],
      /Press Ctrl\+C/,
    );
    const banner = host.output();
    mcpUrl = /MCP \(bot\):\s+(\S+)/.exec(banner)?.[1] ?? "";
    agentToken = /MCP \(bot\):[^\n]*\n\s+agent token:\s+(\S+)/.exec(banner)?.[1] ?? "";
    expect(mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/bot$/);
  }

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "airlock-journey-"));
    dataDir = join(work, "data");
  });
  afterAll(async () => {
    await host?.stop();
    await registry?.stop();
    await rm(work, { recursive: true, force: true });
  });

  it("starts a registry and issues a publish token", { timeout: STEP }, async () => {
    const reg = join(work, "registry");
    publishToken = (
      await ok("airlock-registry", ["token", "create", "--owner", "acme", "--data-dir", reg])
    ).stdout.trim();
    registry = await daemon(
      "airlock-registry",
      ["serve", "--port", "0", "--data-dir", reg],
      /listening on http/,
    );
    registryUrl = /listening on (http:\/\/\S+)/.exec(registry.output())?.[1] ?? "";
    expect(registryUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
  });

  it("scaffolds, builds, packs, signs and publishes a plugin", { timeout: STEP }, async () => {
    await ok("airlock-plugin", ["init", author(), "--namespace", "hello", "--tool", "greet"]);
    await ok("airlock-plugin", ["build"], { cwd: author() });
    const packed = await ok("airlock-plugin", ["pack"], { cwd: author() });
    expect(packed.stdout).toMatch(/hello-0\.1\.0\.tgz/);
    expect(packed.stdout).toMatch(/sha512-/);
    const key = await ok("airlock-plugin", ["keygen", "--out", join(work, "keys"), "--name", "acme"]);
    expect(key.stdout).toMatch(/SHA256:/);
    await publish(author());
    const doc = (await (await fetch(`${registryUrl}/hello`)).json()) as {
      versions: Record<string, { dist: { signatures: unknown[] } }>;
    };
    expect(doc.versions["0.1.0"]?.dist.signatures).toHaveLength(1);
  });

  it(
    "publishes the first-party render, upload and notes plugins the same way",
    { timeout: STEP },
    async () => {
      for (const name of ["render", "upload", "notes"]) {
        const dir = join(work, name);
        await cp(join(ROOT, "plugins", name), dir, {
          recursive: true,
          filter: (src) => !/[/\\](dist|node_modules)$/.test(src),
        });
        await publish(dir);
      }
    },
  );

  it(
    "installs from the registry with the author's key trusted, enables tools and sets a secret",
    { timeout: STEP },
    async () => {
      const trust = ["--registry", registryUrl, "--trust-key", join(work, "keys/acme.pub")];
      for (const spec of ["hello@^0.1.0", "render@1.0.0", "upload@1.0.0", "notes@1.0.0"]) {
        const out = await host$("install", spec, ...trust);
        expect(out.stdout).toContain(spec.split("@")[0]);
      }
      await host$("agents", "create", "bot");
      await host$(
        "agents",
        "enable",
        "bot",
        "hello:greet",
        "render:renderCsv",
        "upload:uploadArtifact",
        "notes:searchNotes",
        "notes:readNote",
      );
      await host$("agents", "level", "bot", "write");
      const before = await host$("agents", "tools", "bot", "--json");
      expect(before.stdout).toContain("upload_token");
      await ok(
        "airlock",
        ["agents", "set-secret", "bot", "upload_token", "--from-env", "UPLOAD_TOKEN", "--data-dir", dataDir],
        {
          env: { UPLOAD_TOKEN, AIRLOCK_SANDBOX: "in-process" },
        },
      );
      const secrets = await host$("agents", "secrets", "bot");
      expect(secrets.stdout).not.toContain(UPLOAD_TOKEN);
    },
  );

  it(
    "serves the agent over MCP: tools listed and called by their wire names",
    { timeout: STEP },
    async () => {
      await startHost();
      const names = await toolNames();
      expect(names).toEqual(
        expect.arrayContaining([
          "hello__greet",
          "render__renderCsv",
          "upload__uploadArtifact",
          "notes__readNote",
        ]),
      );
      expect(await greet()).toBe("Hello, Ada!");
    },
  );

  it(
    "hands an artifact from render to upload, which files it in knowledge that notes reads back",
    { timeout: STEP },
    async () => {
      await mcp(async (c) => {
        const rendered = await c.callTool({
          name: "render__renderCsv",
          arguments: { columns: ["animal", "count"], rows: [["quokka", "3"]], filename: "census" },
        });
        const { handle } = JSON.parse(textOf(rendered)) as { handle: string };
        const uploaded = await c.callTool({
          name: "upload__uploadArtifact",
          arguments: { handle, destination: "knowledge" },
        });
        expect(uploaded.isError).toBeFalsy();
        const { id } = JSON.parse(textOf(uploaded)) as { id: string };
        const again = await c.callTool({
          name: "upload__uploadArtifact",
          arguments: { handle, destination: "knowledge" },
        });
        expect(again.isError).toBe(true);

        const found = await c.callTool({
          name: "notes__searchNotes",
          arguments: { query: "quokka", limit: null },
        });
        expect(JSON.parse(textOf(found)).hits.map((h: { id: string }) => h.id)).toContain(id);
        const doc = JSON.parse(textOf(await c.callTool({ name: "notes__readNote", arguments: { id } })));
        expect(doc).toMatchObject({
          filename: "census.csv",
          writer: "plugin:upload",
          content: "animal,count\r\nquokka,3\r\n",
        });
      });
    },
  );

  it("upgrades to a new published version, rolls back, and uninstalls", { timeout: STEP }, async () => {
    const entry = join(author(), "src/index.ts");
    const source = await readFile(entry, "utf8");
    await writeFile(
      entry,
      source.replace('version: "0.1.0"', 'version: "0.2.0"').replace("`Hello, ", "`Hi, "),
    );
    await publish(author());

    await host$("plugins", "upgrade", "hello", "--trust-key", join(work, "keys/acme.pub"));
    expect(await greet()).toBe("Hi, Ada!");
    await host$("plugins", "rollback", "hello");
    expect(await greet()).toBe("Hello, Ada!");
    const list = await host$("plugins", "list");
    expect(list.stdout).toMatch(/hello@0\.1\.0 \(previous 0\.2\.0\)/);

    await host$("plugins", "uninstall", "hello");
    const names = await toolNames();
    expect(names).not.toContain("hello__greet");
    expect(names).toContain("render__renderCsv");
  });
});
