// Runs every command of docs/quickstart.md's `sh` blocks, in order and unchanged but for ports,
// in a temp dir: `npm start` (checked to be `airlock start`) and `npx <bin>` are the real CLIs
// as child processes; a trailing `&` keeps a server running; `cd` and `export` (including
// `VAR=$(command)`) work as in a shell; AIRLOCK_DATA_DIR points the host at the temp dir.
// Documented ports (4480, 4873) are replaced by free ones, consistently. Then an MCP client
// checks the outcome the guide promises: the author's tool is served to the example agent.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, type BinName, type Daemon, daemon, ok, ROOT } from "./cli-support.ts";

const DOC = readFileSync(join(ROOT, "docs/quickstart.md"), "utf8");
const COMMANDS = [...DOC.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
  (m[1] ?? "").split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("#")),
);

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

describe("docs/quickstart.md", () => {
  const daemons: Daemon[] = [];
  let work = "";
  afterAll(async () => {
    for (const d of daemons.reverse()) await d.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("shows commands, and npm start is airlock start", () => {
    expect(COMMANDS.length).toBeGreaterThan(10);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      scripts: { start: string };
    };
    expect(pkg.scripts.start).toBe("airlock start");
  });

  it(
    "runs every documented command, and the author's tool is then served over MCP",
    { timeout: 240_000 },
    async () => {
      work = await mkdtemp(join(tmpdir(), "airlock-quickstart-"));
      const ports = new Map([
        ["4480", String(await freePort())],
        ["4873", String(await freePort())],
      ]);
      const env: Record<string, string> = {
        AIRLOCK_DATA_DIR: join(work, ".airlock-data"),
        AIRLOCK_SANDBOX: "in-process", // admin commands only; `npm start` passes --sandbox workers
      };
      let cwd = work;
      const expand = (word: string) =>
        word
          .replace(/\$([A-Z_][A-Z0-9_]*)/g, (_, name: string) => env[name] ?? "")
          .replace(/\b(4480|4873)\b/g, (p) => ports.get(p) ?? p);
      const toInvocation = (line: string): { bin: BinName; args: string[] } => {
        const words = line.trim().split(/\s+/).map(expand);
        if (words[0] === "npm" && words[1] === "start") {
          // the default sandbox mode, end to end: isolates in worker processes
          return {
            bin: "airlock",
            args: ["start", "--port", ports.get("4480") as string, "--sandbox", "workers"],
          };
        }
        const bin = words[1] as BinName;
        if (words[0] !== "npx" || !(bin in BIN)) throw new Error(`the quickstart runner cannot run: ${line}`);
        return { bin, args: words.slice(2) };
      };

      for (const line of COMMANDS) {
        const cd = /^cd\s+(\S+)$/.exec(line.trim());
        const exported = /^export\s+([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
        if (cd) {
          cwd = resolve(cwd, cd[1] as string);
        } else if (exported) {
          const [, name, value] = exported as unknown as [string, string, string];
          const sub = /^\$\((.*)\)$/.exec(value);
          if (sub) {
            const { bin, args } = toInvocation(sub[1] as string);
            env[name] = (await ok(bin, args, { cwd, env })).stdout.trim();
          } else env[name] = expand(value);
        } else if (line.trim().endsWith("&")) {
          const { bin, args } = toInvocation(line.trim().slice(0, -1));
          daemons.push(await daemon(bin, args, /listening on|Press Ctrl\+C/, { cwd, env }));
        } else if (line.trim() === "npm start") {
          const { bin, args } = toInvocation(line);
          daemons.push(await daemon(bin, args, /Press Ctrl\+C/, { cwd, env }));
        } else {
          const { bin, args } = toInvocation(line);
          await ok(bin, args, { cwd, env });
        }
      }

      const banner = daemons[0]?.output() ?? "";
      const mcpUrl = /MCP \(example\):\s+(\S+)/.exec(banner)?.[1] ?? "";
      const token = /MCP \(example\):[^\n]*\n\s+agent token:\s+(\S+)/.exec(banner)?.[1] ?? "";
      const client = new Client({ name: "quickstart", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain("hello__greet");
        const r = await client.callTool({ name: "hello__greet", arguments: { name: "Docs", excited: null } });
        expect(r.content).toEqual([{ type: "text", text: "Hello, Docs." }]);
      } finally {
        await client.close();
      }
    },
  );
});
