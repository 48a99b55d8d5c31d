// The render plugin's chart UI (MCP Apps), built from the plugin's source like any plugin and
// installed signed, rendered in Chromium the way an MCP Apps client renders it: a sandboxed
// iframe holding the HTML the host serves for ui://render/chart, under the spec's restrictive
// default CSP (the UI declares none), a parent page speaking the extension's postMessage
// JSON-RPC (ui/initialize, then the tool's input and result). The test checks the bars drawn
// from the input, clicks the UI's button, and follows the tools/call it sends through the
// agent's real pipeline into the audit. The weather plugin's card is rendered the same way, with
// an answer and with a failed call. Screenshots are kept in test/artifacts/apps/.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodeModeHost, startCodeModeHost } from "../support/code-mode-host.ts";
import { hasChromium, launch } from "./console-support.ts";

const ARTIFACTS = join(import.meta.dirname, "..", "artifacts", "apps");

let fx: CodeModeHost;
let browser: Browser;

beforeAll(async () => {
  fx = await startCodeModeHost({ mode: "in-process", plugins: ["render", "weather"], agents: ["alpha"] });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await fx?.close();
});

/** What the client tells the UI once it is initialized: the tool it renders, its call's arguments and result. */
interface Call {
  tool: string;
  arguments: unknown;
  result: unknown;
}

const CHART_CALL: Call = {
  tool: "render__renderChart",
  arguments: { values: [3, 1, 2], width: null, height: null, filename: null },
  result: { content: [], structuredContent: { filename: "chart.png", bytes: 123 } },
};

/** The client side: a sandboxed iframe with the UI's HTML and the restrictive default CSP, and the bridge. */
function hostPage(html: string, call: Call = CHART_CALL): string {
  const csp =
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none';";
  const doc = html.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${csp}">`);
  return `<!doctype html><html><body style="margin:0">
<iframe id="view" sandbox="allow-scripts" style="width:480px;height:320px;border:1px solid #ccc"></iframe>
<script>
  const frame = document.getElementById("view");
  window.toolCalls = [];
  window.addEventListener("message", async (event) => {
    if (event.source !== frame.contentWindow) return;
    const msg = event.data;
    const reply = (body) => frame.contentWindow.postMessage({ jsonrpc: "2.0", id: msg.id, ...body }, "*");
    if (msg.method === "ui/initialize") {
      reply({ result: { protocolVersion: "2026-01-26", hostInfo: { name: "test-host", version: "1.0.0" },
        hostCapabilities: { serverTools: {} },
        hostContext: { toolInfo: { tool: { name: ${JSON.stringify(call.tool)}, inputSchema: { type: "object" } } } } } });
    } else if (msg.method === "ui/notifications/initialized") {
      const send = (method, params) => frame.contentWindow.postMessage({ jsonrpc: "2.0", method, params }, "*");
      send("ui/notifications/tool-input", { arguments: ${JSON.stringify(call.arguments)} });
      send("ui/notifications/tool-result", ${JSON.stringify(call.result)});
    } else if (msg.method === "tools/call") {
      window.toolCalls.push(msg.params);
      try { reply({ result: await window.callTool(msg.params.name, msg.params.arguments) }); }
      catch (e) { reply({ error: { code: -32603, message: String(e) } }); }
    }
  });
  frame.srcdoc = ${JSON.stringify(doc).replaceAll("</", "<\\/")};
</script></body></html>`;
}

describe.skipIf(!hasChromium)("the render plugin's chart UI in Chromium", () => {
  it("draws the tool's values and calls renderChart again through the agent's pipeline, audited", async () => {
    const doc = await fx.host.readUiResource("alpha", "ui://render/chart");
    expect(doc.mimeType).toBe("text/html;profile=mcp-app");
    expect(doc.tools).toEqual(["render:renderChart"]);
    const run = await fx.host.startRun({ agent: "alpha" });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    await page.exposeFunction("callTool", async (name: string, args: unknown) => {
      const outcome = await run.call(name, args);
      return outcome.result;
    });
    await page.setContent(hostPage(doc.html));
    const view = page.frameLocator("#view");
    await expect.poll(() => view.locator("#chart rect").count()).toBe(3);
    const heights = await view
      .locator("#chart rect")
      .evaluateAll((rects) => rects.map((r) => Number(r.getAttribute("height"))));
    expect(heights).toEqual([196, 65.33, 130.67]);
    expect(await view.locator("#values li").allTextContents()).toEqual(["3", "1", "2"]);
    expect(await view.locator("#status").textContent()).toBe("3 values");
    expect(await view.locator("#caption").textContent()).toBe("chart.png (123 bytes) is ready to hand on.");

    await view.locator("#again").click();
    await expect.poll(() => view.locator("#caption").textContent()).toMatch(/^Rendered again: chart\.png$/);
    expect(await page.evaluate("window.toolCalls")).toEqual([
      {
        name: "render__renderChart",
        arguments: { values: [3, 1, 2], width: null, height: null, filename: null },
      },
    ]);
    // the one tool call of this agent: the app's, through the pipeline (its artifact put audited too)
    const audit = await fx.host.queryAudit({ agent: "alpha", plugin: "render", limit: 20 });
    expect(audit.map((e) => [e.kind, e.action, e.tool, e.success])).toEqual([
      ["tool", "call", "renderChart", true],
      ["capability", "artifacts.put", "renderChart", true],
    ]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "render-chart.png") });
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(!hasChromium)("the weather plugin's card in Chromium", () => {
  it("shows currentWeather's answer, and what the tool said when it failed", async () => {
    const doc = await fx.host.readUiResource("alpha", "ui://weather/card");
    expect(doc.mimeType).toBe("text/html;profile=mcp-app");
    expect(doc.tools).toEqual(["weather:currentWeather"]);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const answered: Call = {
      tool: "weather__currentWeather",
      arguments: { city: "Oslo" },
      result: {
        content: [],
        structuredContent: {
          city: "Oslo",
          condition: "light rain",
          temperature: "4.5 °C",
          wind: "18 km/h",
          units: "metric",
        },
      },
    };
    await page.setContent(hostPage(doc.html, answered));
    const view = page.frameLocator("#view");
    await expect.poll(() => view.locator("#temperature").textContent()).toBe("4.5 °C");
    expect(await view.locator("#city").textContent()).toBe("Oslo");
    expect(await view.locator("#condition").textContent()).toBe("light rain");
    expect(await view.locator("#wind").textContent()).toBe("18 km/h");
    expect(await view.locator("#units").textContent()).toBe("metric");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "weather-card.png") });

    const failed: Call = {
      tool: "weather__currentWeather",
      arguments: { city: "Atlantis" },
      result: { isError: true, content: [{ type: "text", text: 'No weather station knows "Atlantis".' }] },
    };
    const second = await browser.newPage();
    second.on("pageerror", (e) => errors.push(String(e)));
    await second.setContent(hostPage(doc.html, failed));
    const failedView = second.frameLocator("#view");
    await expect
      .poll(() => failedView.locator("#status").textContent({ timeout: 5000 }), { timeout: 10_000 })
      .toBe('No weather station knows "Atlantis".');
    expect(await failedView.locator("#details").isHidden()).toBe(true);
    expect(errors).toEqual([]);
    await second.close();
    await page.close();
  });
});
