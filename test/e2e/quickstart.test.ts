// Runs README "Set-up"'s `npm link` and then every command of docs/quickstart.md's `sh` blocks,
// in order and unchanged, as a new user would (doc-shell.ts): each line by bash, with the three
// commands on PATH from the link (into a temp prefix), in folders outside the checkout (the host
// in ~/airlock-host, the author's project in ~/hello), for a fresh user (a new HOME, nothing
// Airlock-specific in the environment). What the runner replaces: documented ports (4480, 4873)
// by free ones (`airlock start` also gets `--port`), and `apr_…` by the id the preceding
// `airlock approvals list` printed. The doc is the script: change one and the other fails.
// Around the commands, a real user's other hands: the console is signed in to at the printed URL
// (and every console label the page names in bold is one the console shows); a call that waits
// for approval is made through the banner's Cursor configuration before `approvals list`; the
// banner's Claude Desktop configuration and the entry `airlock-plugin dev --help` prints are
// pasted as printed into the MCP SDK v2 client over stdio, with a client's bare environment.
// The banner itself must equal the page's sample (placeholders aside), and README's description
// of it must name every line it has.

import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./cli-support.ts";
import { DocShell, freePort, freshEnv, readmeSetup, shLines } from "./doc-shell.ts";

const DOC = readFileSync(join(ROOT, "docs/quickstart.md"), "utf8");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
/** The sample banner the page shows (its ```text block that starts with "Airlock "). */
const SAMPLE_BANNER = /```text\n(Airlock [\s\S]*?)```/.exec(DOC)?.[1] ?? "";
const COMMANDS = shLines(DOC);
/** The operator part from "Sign in" on, where bold words are the console's own labels. */
const CONSOLE_STEPS = DOC.slice(DOC.indexOf("### 2. Sign in"), DOC.indexOf("## Plugin author"));
/** README's paragraph on what `airlock start` prints. */
const README_BANNER = /It then prints([\s\S]*?)\n\n/.exec(README)?.[1] ?? "";

/**
 * The real banner as the page prints it: this run's folders, ports, tokens and key id replaced by
 * the page's placeholders (everything else, the layout included, must be equal).
 */
function asDocumented(banner: string, home: string, port: string): string {
  const registryPort = /Local registry:\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(banner)?.[1] ?? "";
  return banner
    .replaceAll(ROOT, "/path/to/airlock")
    .replaceAll(home, "~")
    .replaceAll(`127.0.0.1:${port}`, "127.0.0.1:4480")
    .replaceAll(`127.0.0.1:${registryPort}`, "127.0.0.1:43117")
    .replace(/alk_(op|ag)_[A-Za-z0-9_-]+/g, "alk_$1_…")
    .replace(/SHA256:[A-Za-z0-9+/=]+/g, "SHA256:…");
}

/** The banner's client configurations ("Connect an MCP client"), by label. */
function clientConfigs(banner: string): Map<string, string> {
  const block =
    banner.split(/\nConnect an MCP client to \S+ \(paste as printed; docs\/mcp\.md\):\n/)[1] ?? "";
  const configs = new Map<string, string>();
  for (const [, label, text] of block.matchAll(/^ {2}(\S[^\n]*):\n {4}(\S[^\n]*)$/gm))
    configs.set(label as string, text as string);
  return configs;
}

interface Entry {
  url?: string;
  headers?: Record<string, string>;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
}

/** A pasted configuration's one server entry ({mcpServers: {name: entry}}). */
function serverOf(config: string): Entry {
  const servers = (JSON.parse(config) as { mcpServers: Record<string, Entry> }).mcpServers;
  return Object.values(servers)[0] as Entry;
}

async function connectV2(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const client = new Client({ name: "quickstart", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** A stdio entry as a desktop client starts it: from a folder of its own, with a bare environment. */
function stdio(entry: Entry, home: string): StdioClientTransport {
  return new StdioClientTransport({
    command: entry.command as string,
    args: entry.args ?? [],
    cwd: tmpdir(),
    env: { HOME: home, PATH: "/usr/bin:/bin", ...entry.env },
    stderr: "ignore",
  });
}

const http = (entry: Entry) =>
  new StreamableHTTPClientTransport(new URL(entry.url as string), {
    requestInit: { headers: entry.headers ?? {} },
  });

const textOf = (r: unknown): string =>
  (((r as { content?: unknown }).content ?? []) as Array<{ text?: string }>)
    .map((p) => p.text ?? "")
    .join("");

describe("docs/quickstart.md", () => {
  let work = "";
  let shell: DocShell | undefined;
  const clients: Client[] = [];
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await shell?.stopAll();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("shows the commands on PATH, the console first, and no raw HTTP", () => {
    expect(COMMANDS.length).toBeGreaterThan(20);
    // `npx airlock` outside the checkout runs an unrelated public package (issue 41, point 2).
    expect(COMMANDS.filter((l) => /^npx airlock(-registry)?\b(?!-)/.test(l))).toEqual([]);
    expect(COMMANDS).toContain("airlock start");
    expect(COMMANDS).toContain("airlock approvals list");
    expect(DOC).not.toMatch(/\bcurl\b/);
    expect(DOC.indexOf("### 2. Sign in to the console")).toBeGreaterThan(0);
    expect(DOC.indexOf("### 2. Sign in to the console")).toBeLessThan(DOC.indexOf("### 3."));
  });

  it(
    "runs README's set-up and every documented command as written, outside the checkout, with pasted client configs",
    { timeout: 480_000 },
    async () => {
      work = await mkdtemp(join(tmpdir(), "airlock-quickstart-"));
      const home = join(work, "home");
      await mkdir(home, { recursive: true });
      const ports = new Map([
        ["4480", String(await freePort())],
        ["4873", String(await freePort())],
      ]);
      const sh = new DocShell(ROOT, freshEnv(home, join(work, "prefix")));
      shell = sh;
      // README "Set-up": in the checkout, as it says; then a new terminal, in HOME.
      const setup = readmeSetup();
      expect(setup).toEqual(["npm link", "airlock --version"]);
      for (const line of setup) await sh.run(line);
      sh.cwd = home;

      let banner = "";
      let approvalId = "";
      let waiting: Promise<unknown> | undefined;
      const admin = async (path: string, init: RequestInit = {}) => {
        const base = /Admin API:\s+(\S+)\/api/.exec(banner)?.[1] ?? "";
        const operator = /Operator token:\s+(\S+)/.exec(banner)?.[1] ?? "";
        return fetch(`${base}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${operator}`, "content-type": "application/json" },
        });
      };
      const configs = () => clientConfigs(banner);
      const cursor = () =>
        serverOf(configs().get("Cursor (~/.cursor/mcp.json) and other `mcpServers` clients") ?? "{}");

      const before: Record<string, () => Promise<void>> = {
        // The client asks to write a note; the call waits for the operator.
        "airlock approvals list": async () => {
          const client = await connectV2(http(cursor()));
          clients.push(client);
          waiting = client.callTool({
            name: "notes__writeNote",
            arguments: { id: null, title: "Groceries", content: "Milk and bread.", mode: null },
          });
          for (let i = 0; i < 600; i++) {
            const list = (await (await admin("/api/approvals")).json()) as { approvals: unknown[] };
            if (list.approvals.length > 0) return;
            await new Promise((r) => setTimeout(r, 100));
          }
          throw new Error("the write call never waited for an approval");
        },
      };
      const after: Record<string, (out: string) => Promise<void>> = {
        "airlock approvals list": async (out) => {
          approvalId = /\bapr_[0-9a-f-]+/.exec(out)?.[0] ?? "";
          expect(out).toMatch(/apr_\S+\texample\tnotes:writeNote\t/);
        },
        "airlock approvals approve apr_…": async (out) => {
          expect(out).toBe(`Approved ${approvalId}.\n`);
          const result = await waiting;
          expect((result as { isError?: boolean }).isError).toBeFalsy();
          expect(JSON.parse(textOf(result))).toMatchObject({ action: "created" });
        },
        // The token it prints serves the other agent, with only the tools enabled for it.
        'airlock tokens create --role agent --agent support-bot --label "my laptop"': async (out) => {
          const token = /^token: (\S+)$/m.exec(out)?.[1] as string;
          const url = (/MCP \(example\):\s+(\S+)/.exec(banner)?.[1] ?? "").replace(/example$/, "support-bot");
          expect(url).toBe(`http://127.0.0.1:${ports.get("4480")}/mcp/support-bot`);
          const client = await connectV2(
            new StreamableHTTPClientTransport(new URL(url), {
              requestInit: { headers: { Authorization: `Bearer ${token}` } },
            }),
          );
          clients.push(client);
          expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
            "notes__readNote",
            "notes__searchNotes",
          ]);
          await client.close();
        },
        // The entry the help prints, pasted into a client's configuration as printed.
        "npx airlock-plugin dev --help": async (out) => {
          const line =
            out
              .trim()
              .split("\n")
              .findLast((l) => l.trim().startsWith('{"command"')) ?? "";
          const entry = JSON.parse(line.trim()) as Entry;
          expect(entry.args).toContain(join(home, "hello"));
          const client = await connectV2(stdio(entry, home));
          clients.push(client);
          expect((await client.listTools()).tools.map((t) => t.name)).toContain("greet");
          await client.close();
        },
      };

      const hooked = new Set<string>();
      for (const raw of COMMANDS) {
        const line = raw
          .replace(/\b(4480|4873)\b/g, (p) => ports.get(p) ?? p)
          .replace("apr_…", () => approvalId);
        if (/^airlock start\b/.test(line)) {
          const host = await sh.daemon(`${line} --port ${ports.get("4480")}`, /Press Ctrl\+C/);
          banner = host.out();
        } else if (line.endsWith("&")) {
          await sh.daemon(line, /listening on/);
        } else {
          await before[raw]?.();
          const out = await sh.run(line);
          await after[raw]?.(out);
          hooked.add(raw);
        }
      }
      // Every hook met its line: the page still has each line the hooks check around.
      for (const line of [...Object.keys(before), ...Object.keys(after)]) expect(hooked).toContain(line);

      // The page's sample banner is this banner (run the test, paste what it prints on a failure).
      expect(asDocumented(banner, home, ports.get("4480") as string)).toBe(SAMPLE_BANNER);
      // README's description of the banner names each of its lines and each client it configures.
      const labels = (banner.split("\n\n")[0] ?? "")
        .split("\n")
        .slice(1)
        .map((l) => (/^\s+([^:]+):/.exec(l)?.[1] ?? "").replace(/^MCP \(\S+\)$/, "MCP (<agent>)"));
      for (const label of new Set(labels)) expect(README_BANNER, label).toContain(`\`${label}\``);
      for (const client of ["Cursor", "VS Code", "Claude Desktop", "MCP Inspector"]) {
        expect([...configs().keys()].some((k) => k.startsWith(client))).toBe(true);
        expect(README_BANNER).toContain(client);
      }

      // The console: the printed URL, the bare address sends a browser there, the operator token
      // signs in, and every label the page names in bold is one the console shows.
      const consoleUrl = /Console:\s+(\S+)/.exec(banner)?.[1] as string;
      const page = await fetch(consoleUrl);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      const root = await fetch(consoleUrl.replace(/\/admin$/, "/"), {
        headers: { accept: "text/html" },
        redirect: "manual",
      });
      expect(root.headers.get("location")).toBe("/admin");
      const operator = /Operator token:\s+(\S+)/.exec(banner)?.[1] as string;
      const session = await fetch(`${consoleUrl}/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: operator }),
      });
      expect(session.status).toBe(200);
      const app = await (await fetch(`${consoleUrl}/app.js`)).text();
      const named = [...CONSOLE_STEPS.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1] as string);
      expect(named.length).toBeGreaterThan(15);
      for (const label of new Set(named)) expect(app, `console label ${label}`).toContain(label);

      // Every `airlock` command of the page acted on the running host through its admin API.
      const dataDir = join(home, "airlock-host", ".airlock-data");
      const hostLine = `airlock: host at http://127.0.0.1:${ports.get("4480")} (data: ${dataDir})`;
      const acting = sh.transcript.filter((t) => /^airlock (?!registry|--version)/.test(t.line));
      expect(acting.length).toBeGreaterThan(8);
      for (const t of acting) expect(t.err, t.line).toContain(hostLine);
      expect(existsSync(join(home, "hello", ".airlock-data"))).toBe(false);
      expect(existsSync(join(ROOT, "registry", "registry.db"))).toBe(false);

      // The author's project lived outside the repository and got the SDK from the checkout.
      const project = join(home, "hello");
      expect(project.startsWith(ROOT)).toBe(false);
      const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      };
      expect(pkg.dependencies["@airlock/sdk"]).toBe(`file:${join(ROOT, "sdk")}`);

      // What the operator's commands changed, read back over the admin API.
      const agents = (await (await admin("/api/agents")).json()) as {
        agents: Array<{ slug: string; knowledgeLevel: string }>;
      };
      expect(agents.agents.find((a) => a.slug === "example")?.knowledgeLevel).toBe("manage");
      const secrets = (await (await admin("/api/agents/example/secrets")).json()) as {
        secrets: Array<{ key: string; set: boolean }>;
      };
      expect(secrets.secrets.find((x) => x.key === "api_key")?.set).toBe(true);
      const bot = (await (await admin("/api/agents/support-bot/tools")).json()) as {
        tools: Array<{ id: string; enabled: boolean }>;
      };
      expect(bot.tools.filter((t) => t.enabled).map((t) => t.id)).toEqual(
        expect.arrayContaining(["notes:searchNotes", "notes:readNote"]),
      );
      expect(bot.tools.filter((t) => t.enabled)).toHaveLength(2);

      // The banner's configurations, pasted as printed: the author's tool answers over both.
      const desktop = serverOf(
        configs().get("Claude Desktop (claude_desktop_config.json; stdio, on this machine)") ?? "{}",
      );
      for (const transport of [stdio(desktop, home), http(cursor())]) {
        const client = await connectV2(transport);
        clients.push(client);
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(["hello__greet", "notes__searchNotes"]));
        const r = await client.callTool({ name: "hello__greet", arguments: { name: "Docs", excited: null } });
        expect(r.content).toEqual([{ type: "text", text: "Hello, Docs." }]);
        await client.close();
      }
    },
  );
});
