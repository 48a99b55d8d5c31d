// The console's polish (issue 41, point 11) in a real browser (Debian's chromium, playwright-core)
// against a real host on a real socket: the slowest-tools chart shows a long tool id whole and
// counts execution time, with the waits for approval charted apart; audit identifiers wrap only
// at their separators; the Approvals nav shows the pending count; the approval page (and the other
// people pages) in the console's look with a time in words; a nullable boolean parameter typed as
// such; "Enable all"; a select secret kept after its plugin was uninstalled; install from another
// registry named by URL; ready-made MCP client configs that work as printed; "Signed out." as a
// notice. Every screen is saved under this run's temp dir and copied to /tmp/shots/console-polish/.
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import type { FixturePlugin } from "../../host/src/engine/pipeline/test-fixtures.ts";
import { type AdminServer, startAdminServer } from "../../host/src/surfaces/http/server.ts";
import { createSurfaceFixture, type SurfaceFixture } from "../../host/src/surfaces/http/test-support.ts";
import { startTestRegistry, type TestRegistry } from "./console-extras-support.ts";
import { hasChromium, launch, MAPS, tarball } from "./console-support.ts";

const required = process.env.AIRLOCK_REQUIRE_CHROMIUM === "1";
const SHOTS_DIR = mkdtempSync(join(tmpdir(), "airlock-console-polish-"));
const SHOTS_COPY = "/tmp/shots/console-polish";
const run = promisify(execFile);

/** A plugin whose ids are long (61 characters: a 29-character namespace, a 31-character tool). */
const NS = "observatory-telemetry-archive";
const LONG_TOOL = "hourly_precipitation_by_station";
const LONG_ID = `${NS}:${LONG_TOOL}`;
const CHANGE_TOOL = "approve_retention_change";
const LONG: FixturePlugin = {
  namespace: NS,
  version: "1.0.0",
  tools: [
    {
      name: LONG_TOOL,
      description: "Summarises a station's hourly precipitation probability.",
      category: "weather",
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: "object",
        properties: {
          station: { type: "string", description: "The station code." },
          metric: {
            anyOf: [{ type: "boolean" }, { type: "null" }],
            description: "Metric units (null: the station's).",
          },
        },
        required: ["station"],
        additionalProperties: false,
      },
      code: 'async () => "dry"',
    },
    {
      name: CHANGE_TOOL,
      description: "Changes how long the archive keeps readings (needs an approval).",
      category: "weather",
      annotations: { readOnlyHint: false },
      code: 'async () => "changed"',
    },
  ],
};
/** How long the call waits for its approval before the test approves it. */
const WAIT_MS = 1500;

let f: SurfaceFixture;
let server: AdminServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let reg: TestRegistry;

async function shot(target: Page, name: string, fullPage = true): Promise<void> {
  const path = join(SHOTS_DIR, `${name}.png`);
  await target.screenshot({ path, fullPage });
  mkdirSync(SHOTS_COPY, { recursive: true });
  copyFileSync(path, join(SHOTS_COPY, `${name}.png`));
}

async function waitStatus(text: string | RegExp) {
  await page.locator("#status").filter({ hasText: text }).waitFor({ timeout: 15_000 });
}

/** Polls `check` until it answers true (a generous bound: the machine may be loaded). */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts a call of the tool that needs an approval and answers its pending approval's id. */
async function pendingCall(agent: string) {
  const call = f.host.callTool(agent, `${NS}:${CHANGE_TOOL}`, {});
  let id = "";
  await until("the pending approval", async () => {
    id = (await f.host.listApprovals(agent))[0]?.id ?? "";
    return id !== "";
  });
  return { call, id };
}

/**
 * Words (runs of letters and digits) of the cells under `selector` that a line break cuts in
 * two: each one found as "word in its text", none expected.
 */
async function wordsCut(target: Page, selector: string): Promise<string[]> {
  return (await target.evaluate(`(() => {
    const cut = [];
    for (const cell of document.querySelectorAll(${JSON.stringify(selector)})) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        for (const m of node.data.matchAll(/[A-Za-z0-9]+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) cut.push(m[0] + " in " + cell.textContent);
        }
      }
    }
    return cut;
  })()`)) as string[];
}

/** Node 24, as the project needs it (its `node` dependency); this machine's own node may be older. */
const NODE_24_BIN = join(import.meta.dirname, "..", "..", "node_modules", "node", "bin");

/**
 * The environment a user's client starts a command in: a PATH with Node 24 and without the
 * node_modules/.bin folders the test runner put first, HOME, and the machine's CA and proxy
 * settings (npm cannot reach its registry without them here); nothing of the test runner's npm.
 */
function userEnv(): Record<string, string> {
  const dirs = (process.env.PATH ?? "/usr/bin:/bin").split(":").filter((d) => !d.includes("node_modules"));
  const env: Record<string, string> = {
    PATH: [NODE_24_BIN, ...dirs].join(":"),
    HOME: process.env.HOME ?? tmpdir(),
  };
  for (const key of [
    "NODE_EXTRA_CA_CERTS",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
  ]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

async function listToolsOver(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: "pasted-console-config", version: "1.0.0" });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe.skipIf(!hasChromium && !required)("console polish in chromium (needs /usr/bin/chromium)", () => {
  beforeAll(async () => {
    f = await createSurfaceFixture();
    await f.host.plugins.installTarball(tarball(LONG), "upload:long.tgz", { allowUnsigned: true });
    await f.host.plugins.installTarball(tarball(MAPS), "upload:maps.tgz", { allowUnsigned: true });
    await f.host.setToolsEnabled("alpha", { [LONG_ID]: true, [`${NS}:${CHANGE_TOOL}`]: true });
    reg = await startTestRegistry();
    await reg.publish("weather", "1.0.0");
    server = await startAdminServer(f.host, { port: 0, log: () => undefined });
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await page.goto(`${server.url}/admin`);
    await page.getByLabel("Operator token").fill(f.operatorToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Agents" }).waitFor();
  }, 120_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === "fail")
      await shot(page, `failed-${ctx.task.name.slice(0, 40).replace(/\W+/g, "-")}`);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await reg?.close();
    await f?.close();
  });

  test("the Approvals nav shows how many calls wait, and drops it once decided", async () => {
    const nav = page.getByRole("navigation", { name: "Sections" });
    expect(await nav.getByText("pending").count()).toBe(0);
    const { call, id } = await pendingCall("alpha");
    await nav.getByRole("link", { name: "Approvals 1 pending" }).waitFor({ timeout: 15_000 });
    await shot(page, "01-nav-pending-count", false);
    await f.host.decideApproval(id, { approve: true, via: "admin API" });
    expect((await call).result.isError ?? false).toBe(false);
    await until("the count to go", async () => (await nav.locator(".pending").count()) === 0);
  });

  test("audit: the slowest call per tool is its execution time with the id whole; waits for approval apart", async () => {
    for (let i = 0; i < 3; i++) await f.host.callTool("alpha", LONG_ID, { station: "EGLL" });
    await f.host.callTool("alpha", "kit:fail", {});
    const { call, id } = await pendingCall("alpha");
    const asked = Date.now();
    await until("the wait to last", async () => Date.now() - asked >= WAIT_MS);
    await f.host.decideApproval(id, { approve: true, via: "admin API" });
    await call;
    const [row] = await f.host.queryAudit({ tool: CHANGE_TOOL, kind: "tool", limit: 1 });
    const waited = row?.details?.waitedForApprovalMs as number;
    expect(waited).toBeGreaterThanOrEqual(WAIT_MS - 50);
    expect(row?.durationMs as number).toBeGreaterThanOrEqual(waited);
    // A call nobody was asked about (a read-only tool) records no wait.
    const [readOnly] = await f.host.queryAudit({ tool: LONG_TOOL, kind: "tool", limit: 1 });
    expect(readOnly?.details).toBeDefined();
    expect(readOnly?.details?.waitedForApprovalMs).toBeUndefined();

    await page.getByRole("link", { name: "Audit" }).click();
    const slowest = page
      .getByRole("figure")
      .filter({ has: page.getByRole("img", { name: /Slowest tools/ }) });
    await slowest.waitFor();
    // The long id whole inside its figure, not clipped at either side.
    const place = await slowest.evaluate((fig, id) => {
      const box = fig.getBoundingClientRect();
      const hit = [...fig.querySelectorAll("*")].find((el) => el.textContent === id);
      if (hit === undefined) return null;
      const r = hit.getBoundingClientRect();
      return { inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5, width: r.width };
    }, LONG_ID);
    expect(place, "the tool id is shown as one label").not.toBeNull();
    expect(place?.inside, "the label lies inside the chart").toBe(true);
    // The approval tool's bar is its execution time, not the wait; the wait has its own chart.
    const name = (await slowest.getByRole("img").getAttribute("aria-label")) ?? "";
    const shown = new RegExp(`${CHANGE_TOOL} (\\d+(?:\\.\\d+)?) (ms|s)\\b`).exec(name);
    expect(shown, name).not.toBeNull();
    const shownMs = Number(shown?.[1]) * (shown?.[2] === "s" ? 1000 : 1);
    // the largest execution time of its calls (as printed: ms, or seconds to 2 decimals)
    const rows = await f.host.queryAudit({ tool: CHANGE_TOOL, kind: "tool", limit: 10 });
    const executions = rows.map(
      (r) => (r.durationMs as number) - ((r.details?.waitedForApprovalMs as number) ?? 0),
    );
    const slowestRun = Math.max(...executions);
    expect(Math.abs(shownMs - slowestRun), name).toBeLessThanOrEqual(slowestRun < 1000 ? 0 : 5);
    const waits = page.getByRole("img", { name: /Waits for approval/ });
    await waits.waitFor();
    expect(await waits.getAttribute("aria-label")).toMatch(new RegExp(`${NS}:${CHANGE_TOOL} \\d+\\.\\d+ s`));
    await page
      .locator("table.audit tbody tr", { hasText: CHANGE_TOOL })
      .first()
      .getByText("waiting for approval")
      .waitFor();
    await shot(page, "02-audit-charts");
  });

  test("audit: identifiers wrap at their separators only, never inside a word, at 1280 and 400 px", async () => {
    const cells = "table.audit tbody td";
    await page.locator(cells).first().waitFor();
    expect(await wordsCut(page, cells)).toEqual([]);
    // Short ones (the action, the agent) keep to one line at 1280 px.
    const split = (await page.evaluate(
      `[...document.querySelectorAll('table.audit td[data-label="What"] code, table.audit td[data-label="Agent"] code')]
        .filter((el) => el.getClientRects().length > 1).map((el) => el.textContent)`,
    )) as string[];
    expect(split).toEqual([]);
    await shot(page, "03-audit-table-1280");
    const narrow = await context.newPage();
    await narrow.setViewportSize({ width: 400, height: 800 });
    await narrow.goto(`${server.url}/admin#/audit`);
    await narrow.locator(cells).first().waitFor();
    expect(await wordsCut(narrow, cells)).toEqual([]);
    expect((await narrow.evaluate("document.documentElement.scrollWidth")) as number).toBeLessThanOrEqual(
      400,
    );
    const fig = narrow
      .getByRole("figure")
      .filter({ has: narrow.getByRole("img", { name: /Slowest tools/ }) });
    expect(await wordsCut(narrow, "ul.bar-rows .bar-label")).toEqual([]);
    await fig.scrollIntoViewIfNeeded();
    await shot(narrow, "04-audit-narrow-400", false);
    await narrow.close();
  });

  test("the approval page looks like the console and says when it was asked in words", async () => {
    const { call, id } = await pendingCall("alpha");
    const approval = await context.newPage();
    await approval.goto(`${server.url}/approve/${encodeURIComponent(id)}`);
    await approval.getByRole("heading", { name: `Approve ${NS}:${CHANGE_TOOL}?` }).waitFor();
    // The console's stylesheet and top bar: the same dark bar and brand as /admin.
    expect(await approval.locator("link[rel=stylesheet]").getAttribute("href")).toBe("/admin/app.css");
    const bar = (await approval.evaluate(
      `getComputedStyle(document.querySelector("header.top")).backgroundColor`,
    )) as string;
    expect(bar).toBe("rgb(20, 34, 51)");
    const text = await approval.locator("main").innerText();
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(text).toMatch(
      /Asked\s+(just now|\d+ minutes? ago) \(\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC\)/,
    );
    await shot(approval, "05-approval-page");
    await approval.getByLabel("Operator token").fill(f.operatorToken);
    await approval.getByRole("button", { name: "Sign in" }).click();
    await approval.getByRole("button", { name: "Approve" }).waitFor();
    await shot(approval, "06-approval-page-decide");
    await approval.getByRole("button", { name: "Approve" }).click();
    await approval.getByRole("heading", { name: "Approved" }).waitFor();
    expect(await approval.locator("p.notice").innerText()).toMatch(/was approved/);
    await shot(approval, "07-approval-page-approved");
    expect((await call).result.isError ?? false).toBe(false);
    // A refusal page in the same look, its code in red.
    await approval.goto(`${server.url}/approve/${encodeURIComponent(id)}`);
    await approval.getByRole("alert").filter({ hasText: "AIRLOCK_PAGE_NOT_FOUND" }).waitFor();
    expect(await approval.locator("header.top .brand").innerText()).toBe("Airlock");
    await shot(approval, "08-approval-page-gone");
    await approval.close();
  });

  test("tools: a nullable boolean parameter shows its type; Enable all and Disable all act on the tools shown", async () => {
    await page.goto(`${server.url}/admin#/agents/alpha/tools`);
    const long = page.locator("li.tool", { hasText: LONG_ID });
    await long.getByText("Parameters").click();
    const metric = long.getByRole("row", { name: /metric/ });
    expect(await metric.getByRole("cell").nth(1).innerText()).toBe("boolean | null");
    await page.getByLabel("Plugin").selectOption("maps");
    await page.getByText("2 of").waitFor();
    await page.getByRole("button", { name: "Enable all 2 shown" }).click();
    await waitStatus(
      "2 tool(s) enabled for alpha; not served yet for a missing secret: maps:geocode, maps:route.",
    );
    const enabled = (await f.host.listAgentTools("alpha")).filter((t) => t.namespace === "maps");
    expect(enabled.map((t) => t.enabled)).toEqual([true, true]);
    expect(await page.getByRole("button", { name: "Enable all 2 shown" }).isDisabled()).toBe(true);
    await shot(page, "09-tools-enable-all");
    await page.getByRole("button", { name: "Disable all 2 shown" }).click();
    await waitStatus("2 tool(s) disabled for alpha.");
    const disabled = (await f.host.listAgentTools("alpha")).filter((t) => t.namespace === "maps");
    expect(disabled.map((t) => t.enabled)).toEqual([false, false]);
    await page.getByLabel("Plugin").selectOption("");
    await long.getByText("Parameters").click();
    await long.getByRole("cell", { name: "boolean | null" }).waitFor();
    await long.screenshot({ path: join(SHOTS_DIR, "10-tools-nullable-type.png") });
    copyFileSync(
      join(SHOTS_DIR, "10-tools-nullable-type.png"),
      join(SHOTS_COPY, "10-tools-nullable-type.png"),
    );
  });

  test("secrets: a select secret kept after its plugin was uninstalled is shown as such, and cleared", async () => {
    await f.host.setSecrets("alpha", { region: "eu-west" });
    await page.goto(`${server.url}/admin#/agents/alpha/secrets`);
    expect(await page.locator("#secret-region").evaluate((el) => el.tagName)).toBe("SELECT");
    await f.host.plugins.uninstall("maps");
    await page.reload();
    const kept = page.getByRole("group", { name: "Secret region" });
    await kept.getByText("Used by no installed tool").waitFor();
    expect(await page.locator("#secret-region").count()).toBe(0);
    expect(await page.locator("input[type=password]").count()).toBe(
      await page.locator("form.secret input[type=password]").count(),
    );
    expect(await kept.locator("input, select").count()).toBe(0);
    await shot(page, "11-secrets-kept-after-uninstall");
    await kept.getByRole("button", { name: "Clear region" }).click();
    await waitStatus("region cleared for alpha.");
    expect((await f.host.listSecrets("alpha")).some((s) => s.key === "region")).toBe(false);
  });

  test("plugins: installs from another registry named by URL (the host has none configured)", async () => {
    expect(f.host.plugins.registryUrl).toBeNull();
    await page.goto(`${server.url}/admin#/plugins`);
    await page.getByLabel("Registry", { exact: true }).fill(reg.registry.url);
    await page.getByLabel("Search by name").fill("weath");
    await page.getByRole("button", { name: "Search" }).click();
    await waitStatus(`1 package(s) found in ${reg.registry.url}.`);
    await page.getByRole("button", { name: /weather/ }).click();
    await waitStatus(/weather: 1 version/);
    await page.getByLabel("Allow an unsigned package or an unknown signer").check();
    await page
      .getByRole("form", { name: "Install weather" })
      .getByRole("button", { name: "Preview install" })
      .click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText(`From ${reg.registry.url}`).waitFor();
    await shot(page, "12-registry-other-preview");
    await dialog.getByRole("button", { name: "Install" }).click();
    await waitStatus("Installed weather 1.0.0");
    const weather = (await f.host.plugins.list()).find((p) => p.namespace === "weather");
    expect(weather?.active).toBe("1.0.0");
    expect(JSON.stringify(weather)).toContain(`${reg.registry.url}/weather@1.0.0`);
    await shot(page, "13-registry-other-installed");
  });

  test(
    "agent page: client configs for Cursor, VS Code, Claude Desktop and the Inspector work as printed",
    { timeout: 300_000 },
    async () => {
      await page.goto(`${server.url}/admin#/agents/alpha/tools`);
      await page.getByText("Connect an MCP client").click();
      await page.getByRole("button", { name: "Issue a token for a client" }).click();
      await waitStatus(/issued for alpha and put in the configs/);
      const config = async (label: string) => page.getByLabel(label, { exact: true }).inputValue();
      await shot(page, "14-agent-client-configs", false);
      await page.locator("details.connect").screenshot({ path: join(SHOTS_DIR, "15-client-configs.png") });
      copyFileSync(join(SHOTS_DIR, "15-client-configs.png"), join(SHOTS_COPY, "15-client-configs.png"));
      type Entry = { url: string; type?: string; headers: Record<string, string> };
      const http = (e: Entry) =>
        new StreamableHTTPClientTransport(new URL(e.url), { requestInit: { headers: e.headers } });
      const cursor = (JSON.parse(await config("Cursor")) as { mcpServers: Record<string, Entry> }).mcpServers[
        "airlock-alpha"
      ] as Entry;
      expect(cursor.url).toBe(`${server.url}/mcp/alpha`);
      expect(await listToolsOver(http(cursor))).toContain("kit__echo");
      const vscode = (JSON.parse(await config("VS Code")) as { servers: Record<string, Entry> }).servers[
        "airlock-alpha"
      ] as Entry;
      expect(vscode.type).toBe("http");
      expect(await listToolsOver(http(vscode))).toContain("kit__echo");
      // Claude Desktop starts the mcp-remote bridge with npx (fetched from the npm registry).
      type Stdio = { command: string; args: string[]; env: Record<string, string> };
      const desktop = (JSON.parse(await config("Claude Desktop")) as { mcpServers: Record<string, Stdio> })
        .mcpServers["airlock-alpha"] as Stdio;
      const stdio = new StdioClientTransport({
        command: desktop.command,
        args: desktop.args,
        cwd: tmpdir(),
        env: { ...userEnv(), ...desktop.env },
        stderr: "pipe",
      });
      const bridgeLog: string[] = [];
      stdio.stderr?.on("data", (chunk: Buffer) => bridgeLog.push(chunk.toString()));
      const listed = await listToolsOver(stdio).catch((error: unknown) => {
        throw new Error(`mcp-remote failed: ${String(error)}\n${bridgeLog.join("")}`);
      });
      expect(listed).toContain("kit__echo");
      // The Inspector's command line, run by a shell exactly as printed.
      const inspector = await config("MCP Inspector (CLI)");
      expect(inspector).toMatch(/^npx -y @modelcontextprotocol\/inspector --cli /);
      const { stdout } = await run("sh", ["-c", inspector], {
        cwd: tmpdir(),
        env: userEnv(),
        timeout: 240_000,
      });
      expect(stdout).toContain('"kit__echo"');
    },
  );

  test("signs out with a notice, not an error", async () => {
    await page.goto(`${server.url}/admin#/agents`);
    await page.getByRole("button", { name: "Sign out" }).click();
    const notice = page.getByRole("status").filter({ hasText: "Signed out." });
    await notice.waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    const color = (await notice.evaluate("(el) => getComputedStyle(el).color")) as string;
    expect(color).not.toBe("rgb(176, 0, 32)"); // --bad, the console's error red
    await shot(page, "16-signed-out-notice");
  });
});
