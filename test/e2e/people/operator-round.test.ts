// The operator decides a 2026-07-28 call (policy: operator) on the host's approval page: the v2
// SDK client pinned to 2026-07-28 gets an input_required result carrying a URL-mode
// elicitation to /approve/<id>, the page is driven in headless Chromium (playwright-core), and
// the SDK's retry (with the sealed requestState) runs the call, refuses it with the operator's
// reason, or is asked again while the approval is still pending.
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { connect, type ElicitParams, failures, type LoopFixture, startLoopHost, text } from "./support.ts";

const CHROMIUM = "/usr/bin/chromium";
const missing = existsSync(CHROMIUM) ? null : "chromium is not installed (apt-get install chromium)";
if (missing !== null && process.env.AIRLOCK_REQUIRE_CHROMIUM === "1")
  throw new Error(`operator round: ${missing}`);
const suite = missing === null ? describe : describe.skip;
const KIND = "sdk v2, 2026-07-28" as const;

let fx: LoopFixture;
let browser: Browser;

beforeAll(async () => {
  // A retry waits briefly for the decision before asking again (the default is 45 s).
  fx = await startLoopHost({ approvalWaitMs: 1_000 });
  await fx.host.setPeoplePolicy("alpha", { approval: "operator" });
  if (missing === null) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
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
});

/** Opens the page the client was sent to and decides there as an operator. */
async function decideOnPage(params: ElicitParams, decision: "approve" | "deny", reason = ""): Promise<void> {
  expect(params.mode).toBe("url");
  expect(params.url).toMatch(new RegExp(`^${fx.server.url}/approve/apr_`));
  expect(params.message).toContain("An operator must approve loop__write");
  const page = await browser.newPage();
  try {
    expect((await page.goto(params.url as string))?.status()).toBe(200);
    expect(await page.textContent("h1")).toBe("Approve loop:write?");
    await page.fill("#operator_token", fx.operatorToken);
    await page.click('button[value="sign-in"]');
    await page.waitForSelector("pre");
    if (reason !== "") await page.fill("#reason", reason);
    await page.click(`button[value="${decision}"]`);
    await page.waitForSelector("text=You can close this page", { timeout: 30_000 });
  } finally {
    await page.close();
  }
}

async function approvalRow(approvalId: string) {
  const rows = await fx.host.queryAudit({ agent: "alpha", kind: "tool", limit: 100 });
  return rows.find((r) => r.action === "approval" && r.details?.approvalId === approvalId);
}

const idOf = (params: ElicitParams | undefined) => (params?.url ?? "").split("/approve/")[1] ?? "";

suite(
  `operator approvals as a 2026-07-28 round trip${missing === null ? "" : ` [skipped: ${missing}]`}`,
  () => {
    test("the operator approves on the page; the retried request runs the call", async () => {
      const c = await connect(KIND, fx);
      c.answer = async (params) => {
        await decideOnPage(params, "approve");
        return { action: "accept" };
      };
      expect(text(await c.call("loop__write", { note: "approved on the page" }))).toBe(
        "written: approved on the page",
      );
      expect(c.asked).toHaveLength(1);
      expect(c.wire.join("\n")).toContain('"resultType":"input_required"');
      const id = idOf(c.asked[0]);
      expect(await approvalRow(id)).toMatchObject({
        allowed: true,
        details: { mode: "operator", by: "operator", path: "input_required", approved: true },
      });
      const admin = await fx.host.queryAudit({ kind: "admin", limit: 50 });
      expect(
        admin.find((r) => r.action === "approval.decide" && r.details?.approvalId === id)?.details,
      ).toMatchObject({ via: "approval page", approve: true });
      expect(await fx.host.listApprovals("alpha")).toEqual([]);
      await c.close();
    });

    test("a denial on the page comes back as a tool error naming the operator's reason", async () => {
      const c = await connect(KIND, fx);
      c.answer = async (params) => {
        await decideOnPage(params, "deny", "not this week");
        return { action: "accept" };
      };
      const result = await c.call("loop__write", { note: "denied" });
      expect(result.isError).toBe(true);
      expect(result._meta?.["airlock/errorCode"]).toBe("AIRLOCK_APPROVAL_DENIED");
      expect(text(result)).toBe("The call was not approved: not this week");
      expect(await approvalRow(idOf(c.asked[0]))).toMatchObject({
        allowed: false,
        error: "AIRLOCK_APPROVAL_DENIED",
        details: { by: "operator", path: "input_required", reason: "not this week" },
      });
      await c.close();
    });

    test("while the approval is pending the retry is asked again, with the same page", async () => {
      const c = await connect(KIND, fx);
      c.answer = async (params) => {
        // First round: the person opened the page, nobody decided yet. Second: the operator approves.
        if (c.asked.length === 2) await decideOnPage(params, "approve");
        return { action: "accept" };
      };
      expect(text(await c.call("loop__write", { note: "later" }))).toBe("written: later");
      expect(c.asked).toHaveLength(2);
      expect(c.asked[1]?.url).toBe(c.asked[0]?.url);
      await c.close();
    });

    test("a client that declines to open the page withdraws the approval", async () => {
      const c = await connect(KIND, fx);
      c.answer = () => ({ action: "decline" });
      const result = await c.call("loop__write", { note: "never mind" });
      expect(result._meta?.["airlock/errorCode"]).toBe("AIRLOCK_APPROVAL_DISMISSED");
      expect(await fx.host.listApprovals("alpha")).toEqual([]);
      expect(await approvalRow(idOf(c.asked[0]))).toMatchObject({
        allowed: false,
        error: "AIRLOCK_APPROVAL_DISMISSED",
        details: { by: "client", path: "input_required" },
      });
      await c.close();
    });
  },
);
