// The host's pages driven in a real browser (headless Chromium through playwright-core): the
// approval page an MCP client is sent to when the agent's operator must decide (URL-mode
// elicitation, 2025 era), and the missing-secret page (URL mode in both eras). The secret is a
// canary: it must never appear in any MCP message, log line or audit row, nor be shown back.
// Screenshots go to test/e2e/people/.screenshots/ (gitignored).
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { openStore } from "../../../host/src/host.ts";
import { testStore } from "../../../host/src/state/store/test-store.ts";
import { connect, failures, KINDS, type LoopFixture, startLoopHost, text } from "./support.ts";

const CHROMIUM = "/usr/bin/chromium";
const missing = existsSync(CHROMIUM) ? null : "chromium is not installed (apt-get install chromium)";
if (missing !== null && process.env.AIRLOCK_REQUIRE_CHROMIUM === "1")
  throw new Error(`people pages: ${missing}`);
const suite = missing === null ? describe : describe.skip;
const SHOTS = join(import.meta.dirname, ".screenshots");

let fx: LoopFixture;
let browser: Browser;
const logged: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  for (const method of ["log", "error", "warn", "info"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
  }
  fx = await startLoopHost();
  if (missing === null) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
      ],
    });
  }
}, 60_000);
afterEach(() => {
  const [first] = failures.splice(0);
  if (first !== undefined) throw first;
});
afterAll(async () => {
  await browser?.close();
  await fx.close();
  vi.restoreAllMocks();
});

suite(`the host's pages in Chromium${missing === null ? "" : ` [skipped: ${missing}]`}`, () => {
  test.each(["sdk v1, 2025-era", "sdk v2, 2025-11-25"] as const)(
    "%s: URL mode sends the client to the approval page, the operator approves there, the call completes",
    async (kind) => {
      await fx.host.setPeoplePolicy("alpha", { approval: "operator", askSecrets: [] });
      const c = await connect(kind, fx);
      const slug = kind.startsWith("sdk v1") ? "v1" : "v2";
      c.answer = async (params) => {
        expect(params.mode).toBe("url");
        expect(params.url).toMatch(new RegExp(`^${fx.server.url}/approve/apr_`));
        const page = await browser.newPage();
        const response = await page.goto(params.url as string);
        expect(response?.status()).toBe(200);
        expect(await page.textContent("h1")).toBe("Approve loop:write?");
        // the call's input is for an operator's eyes: shown once one signs in
        expect(await page.content()).not.toContain("by the operator");
        await page.screenshot({ path: join(SHOTS, `approve-${slug}-sign-in.png`), fullPage: true });
        await page.fill("#operator_token", fx.operatorToken);
        await page.click('button[value="sign-in"]');
        await page.waitForSelector("pre");
        expect(await page.textContent("pre")).toContain('"note": "by the operator"');
        await page.screenshot({ path: join(SHOTS, `approve-${slug}-form.png`), fullPage: true });
        await page.click('button[value="approve"]');
        await page.waitForSelector("text=You can close this page");
        expect(await page.textContent("h1")).toBe("Approved");
        await page.screenshot({ path: join(SHOTS, `approve-${slug}-done.png`), fullPage: true });
        await page.close();
        return { action: "accept" };
      };
      expect(text(await c.call("loop__write", { note: "by the operator" }))).toBe("written: by the operator");
      expect(c.asked).toHaveLength(1);
      const rows = await fx.host.queryAudit({ kind: "admin", limit: 20 });
      expect(rows.find((r) => r.action === "approval.decide")?.details).toMatchObject({
        by: "operator",
        via: "approval page",
        approve: true,
      });
      await c.close();
    },
  );

  test.each(KINDS)(
    "%s: a missing secret is entered on the host's page and the call proceeds; the canary never leaks",
    async (kind) => {
      const canary = `CANARY-${kind.replace(/\W+/g, "-")}-${Math.random().toString(36).slice(2)}`;
      await fx.host.deleteSecret("alpha", "api_key");
      await fx.host.setPeoplePolicy("alpha", { askSecrets: ["api_key"] });
      const c = await connect(kind, fx);
      let pageHtml = "";
      c.answer = async (params) => {
        expect(params.mode).toBe("url");
        expect(params.url).toMatch(new RegExp(`^${fx.server.url}/secrets/`));
        const page = await browser.newPage();
        expect((await page.goto(params.url as string))?.status()).toBe(200);
        expect(await page.textContent("h1")).toBe("Enter a secret");
        await page.screenshot({
          path: join(SHOTS, `secret-${kind.replace(/\W+/g, "-")}-form.png`),
          fullPage: true,
        });
        await page.fill("#s_api_key", canary);
        await page.click('button[type="submit"]');
        await page.waitForSelector("text=You can close this page");
        pageHtml = await page.content();
        await page.screenshot({
          path: join(SHOTS, `secret-${kind.replace(/\W+/g, "-")}-done.png`),
          fullPage: true,
        });
        await page.close();
        return { action: "accept" };
      };
      const result = await c.call("loop__keyed", {});
      expect(text(result)).toBe(`key of ${canary.length} characters`);
      expect(c.asked).toHaveLength(1);
      // Nowhere: not over MCP, not in the page shown back, not in any audit row or log line.
      await new Promise((resolve) => setTimeout(resolve, 50)); // recorded response bodies settle
      expect(c.wire.length).toBeGreaterThan(2);
      expect(c.wire.join("\n")).not.toContain(canary);
      expect(pageHtml).not.toContain(canary);
      expect(JSON.stringify(await fx.host.queryAudit({ limit: 1000 }))).not.toContain(canary);
      expect(logged.join("\n")).not.toContain(canary);
      // Stored encrypted like any secret.
      const store = await openStore(testStore(fx.dataDir)); // the host has no public store
      const stored = await store.getSecret("alpha", "api_key").finally(() => store.close());
      expect(stored?.ciphertext).toBeDefined();
      expect(stored?.ciphertext).not.toContain(canary);
      const rows = await fx.host.queryAudit({ agent: "alpha", kind: "tool", limit: 50 });
      expect(rows.find((r) => r.action === "secret.request")?.details).toMatchObject({
        keys: ["api_key"],
        outcome: "supplied",
      });
      await c.close();
    },
  );

  test("a tool missing a secret the operator does not allow stays unserved", async () => {
    await fx.host.deleteSecret("alpha", "api_key");
    await fx.host.setPeoplePolicy("alpha", { askSecrets: [] });
    const c = await connect("sdk v2, 2025-11-25", fx);
    const result = await c.call("loop__keyed", {});
    expect(result._meta?.["airlock/errorCode"]).toBe("AIRLOCK_MCP_UNKNOWN_TOOL");
    expect(c.asked).toEqual([]);
    await c.close();
  });
});
