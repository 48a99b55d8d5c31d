// What `airlock mcp` loads at start: not undici, the MCP client SDK, node:http, esbuild or the
// admin server's modules, which load on first use (egress/undici.ts, remote/mcp-client.ts,
// egress/exchange.ts, code-mode/strip.ts, commands/start.ts). Each was 20–130 ms of every
// start-up; a static import added anywhere on the path would bring it back, and this test names
// it. (The `airlock` executable runs these modules from the host bundle, cli/bundle/, which keeps
// the same dynamic imports apart.)
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const HOST = join(import.meta.dirname, "..", "..", "..");

/** Imports `entry` in a fresh process and lists every module it resolved, and Node's own. */
function loadedBy(entry: string): { urls: string[]; builtins: string[] } {
  const script = `
    import { registerHooks } from "node:module";
    const urls = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); urls.push(r.url); return r; } });
    await import(${JSON.stringify(entry)});
    const builtins = process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13));
    process.stdout.write(JSON.stringify({ urls, builtins }));
  `;
  const out = execFileSync(process.execPath, ["--no-node-snapshot", "--input-type=module", "-e", script], {
    cwd: HOST,
    encoding: "utf8",
  });
  return JSON.parse(out) as { urls: string[]; builtins: string[] };
}

describe("start-up imports", () => {
  it("loads neither undici, the MCP client SDK, node:http nor the admin server for airlock mcp", () => {
    const { urls, builtins } = loadedBy(join(HOST, "src", "surfaces", "cli", "commands", "index.ts"));
    // the probe works: the host and the MCP server SDK are there
    expect(urls.some((u) => u.endsWith("/host/src/host.ts"))).toBe(true);
    expect(urls.some((u) => u.includes("/@modelcontextprotocol/server/"))).toBe(true);
    expect(builtins).toContain("net");
    expect(urls.filter((u) => u.includes("/node_modules/undici/"))).toEqual([]);
    expect(urls.filter((u) => u.includes("/@modelcontextprotocol/client/"))).toEqual([]);
    expect(urls.filter((u) => u.endsWith("/host/src/surfaces/http/server.ts"))).toEqual([]);
    expect(urls.filter((u) => u === "node:http")).toEqual([]);
    expect(builtins).not.toContain("http");
  });

  it("loads no esbuild for airlock mcp (main.ts loads only its command module)", () => {
    const { urls } = loadedBy(join(HOST, "src", "surfaces", "cli", "commands", "mcp.ts"));
    expect(urls.some((u) => u.endsWith("/host/src/host.ts"))).toBe(true);
    expect(urls.filter((u) => u.includes("/node_modules/esbuild/"))).toEqual([]);
  });
});
