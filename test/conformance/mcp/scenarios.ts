// Every server scenario of `@modelcontextprotocol/conformance` 0.1.16, and what Airlock owes it.
// Applicable scenarios name the endpoints they run against (`dev`: `airlock-plugin dev --http`
// serving the conformance plugin under bare names; `agent`: a host's `/mcp/<agent>`, only for
// scenarios that call no fixed tool name) and a `verify` that checks the suite's recorded
// details for the right reason: the suite's own checks are loose (any text part passes
// tools-call-simple-text, any isError result with text passes tools-call-error, an empty tool
// list passes tools-list), so a pass also needs the exact content the scenario specifies.
// Not-applicable scenarios carry the reason docs/mcp.md ("Conformance") gives; the runner
// asserts that they do fail, so a capability that starts being offered cannot stay unlisted.
import type { Check } from "./processes.ts";

export type Target = "dev" | "agent";

export interface Context {
  /** The tool names the endpoint must list, as the client must send them. */
  tools: string[];
  /** Wire name of a conformance tool on this endpoint (`test_simple_text` or `conformance__test_simple_text`). */
  name(tool: string): string;
}

export interface Applicable {
  applicable: true;
  targets: Target[];
  verify?: (checks: Check[], context: Context) => string[];
}

export interface NotApplicable {
  applicable: false;
  reason: string;
}

type Details = Record<string, unknown>;
type Part = { type?: string; text?: string; data?: string; mimeType?: string };

/** The details of the check with `id`, or undefined. */
function details(checks: Check[], id: string): Details | undefined {
  return checks.find((c) => c.id === id)?.details;
}

function result(checks: Check[], id: string): { content?: Part[]; isError?: boolean; _meta?: Details } {
  return (details(checks, id)?.result ?? {}) as { content?: Part[]; isError?: boolean; _meta?: Details };
}

function same(what: string, got: unknown, want: unknown): string[] {
  return JSON.stringify(got) === JSON.stringify(want)
    ? []
    : [`${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
}

function succeeded(checks: Check[], ids: string[]): string[] {
  return ids.flatMap((id) =>
    checks.some((c) => c.id === id && c.status === "SUCCESS") ? [] : [`check ${id} did not succeed`],
  );
}

const TOOLS: Target[] = ["dev"];
const PROMPTS =
  "prompts: Airlock's prompts are the agent's enabled skills (docs/mcp.md, Prompts); it serves none of the suite's test_* prompts";
const RESOURCES =
  "resources: Airlock's resources are the ui:// UIs of the agent's tools (docs/apps.md); it serves none of the suite's test:// resources, no templates and no subscriptions";
const ANY: Target[] = ["dev", "agent"];
export const SCENARIOS: Record<string, Applicable | NotApplicable> = {
  "server-initialize": { applicable: true, targets: ANY },
  "logging-set-level": { applicable: true, targets: ANY },
  ping: { applicable: true, targets: ANY },
  "completion-complete": {
    applicable: false,
    reason:
      "completions: Airlock serves no prompts or resource templates, so it offers no completion capability",
  },
  "tools-list": {
    applicable: true,
    targets: ANY,
    verify: (checks, cx) => same("listed tools", details(checks, "tools-list")?.tools, cx.tools),
  },
  "tools-call-simple-text": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) => {
      const r = result(checks, "tools-call-simple-text");
      return [
        ...same("content", r.content, [
          { type: "text", text: "This is a simple text response for testing." },
        ]),
        ...same("isError", r.isError ?? false, false),
      ];
    },
  },
  "tools-call-image": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) =>
      same("image", details(checks, "tools-call-image"), { mimeType: "image/png", hasData: true }),
  },
  "tools-call-audio": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) => same("audio present", details(checks, "tools-call-audio")?.hasAudioContent, true),
  },
  "tools-call-embedded-resource": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) =>
      same(
        "resource uri",
        details(checks, "tools-call-embedded-resource")?.resourceUri,
        "test://embedded-resource",
      ),
  },
  "tools-call-mixed-content": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) =>
      same("content types", details(checks, "tools-call-mixed-content")?.contentTypes, [
        "text",
        "image",
        "resource",
      ]),
  },
  "tools-call-with-logging": {
    applicable: true,
    targets: TOOLS,
    verify: (checks, cx) =>
      same("log notifications", details(checks, "tools-call-with-logging")?.logs, [
        { level: "info", logger: cx.name("test_tool_with_logging"), data: "Tool execution started" },
        { level: "info", logger: cx.name("test_tool_with_logging"), data: "Tool processing data" },
        { level: "info", logger: cx.name("test_tool_with_logging"), data: "Tool execution completed" },
      ]),
  },
  "tools-call-error": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) => {
      const r = result(checks, "tools-call-error");
      const code = r._meta?.["airlock/errorCode"];
      return [
        ...same("error text", r.content?.[0]?.text, "This tool intentionally returns an error for testing"),
        ...(typeof code === "string" && code !== "AIRLOCK_MCP_UNKNOWN_TOOL"
          ? []
          : [`_meta["airlock/errorCode"] is ${JSON.stringify(code)}, not the code of a tool that threw`]),
      ];
    },
  },
  "tools-call-with-progress": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) => {
      const d = details(checks, "tools-call-with-progress");
      const seen =
        (d?.progressNotifications as Array<{ progress: number; total?: number }> | undefined) ?? [];
      return [
        ...same(
          "progress",
          seen.map((p) => [p.progress, p.total]),
          [
            [0, 100],
            [50, 100],
            [100, 100],
          ],
        ),
        ...same("isError", (d?.result as { isError?: boolean } | undefined)?.isError ?? false, false),
      ];
    },
  },
  "tools-call-sampling": {
    applicable: false,
    reason:
      "sampling: Airlock tools cannot ask the client's model for a completion (no ctx capability for it); no test_sampling tool is implemented rather than fake one",
  },
  "tools-call-elicitation": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) => {
      const d = details(checks, "tools-call-elicitation");
      const r = (d?.result ?? {}) as { content?: Part[] };
      return [
        ...same("elicitation requested", d?.elicitationRequested, true),
        ...same(
          "result text",
          r.content?.[0]?.text,
          'User response: action=accept, content={"username":"testuser","email":"test@example.com"}',
        ),
      ];
    },
  },
  "json-schema-2020-12": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) =>
      succeeded(checks, [
        "json-schema-2020-12-tool-found",
        "json-schema-2020-12-$schema",
        "json-schema-2020-12-$defs",
        "json-schema-2020-12-additionalProperties",
      ]),
  },
  "elicitation-sep1034-defaults": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) =>
      succeeded(checks, [
        "elicitation-sep1034-string-default",
        "elicitation-sep1034-integer-default",
        "elicitation-sep1034-number-default",
        "elicitation-sep1034-enum-default",
        "elicitation-sep1034-boolean-default",
      ]),
  },
  "elicitation-sep1330-enums": {
    applicable: true,
    targets: TOOLS,
    verify: (checks) =>
      succeeded(checks, [
        "elicitation-sep1330-untitled-single",
        "elicitation-sep1330-titled-single",
        "elicitation-sep1330-legacy-enumnames",
        "elicitation-sep1330-untitled-multi",
        "elicitation-sep1330-titled-multi",
      ]),
  },
  "server-sse-polling": {
    applicable: false,
    reason:
      "SSE polling (SEP-1699): the scenario needs a test_reconnection tool that closes the response stream mid-call and a server that replays the result on a GET with Last-Event-ID; Airlock tools do not control the transport and the stateless server keeps no event store to resume from",
  },
  "server-sse-multiple-streams": {
    applicable: true,
    targets: ANY,
    // Without a session id the scenario stops at a WARNING and checks nothing.
    verify: (checks) => succeeded(checks, ["server-accepts-multiple-post-streams"]),
  },
  // The endpoint declares resources (the UIs of the agent's tools, MCP Apps; none in these
  // fixtures): the listing itself is well-formed, the suite's own test:// resources do not exist.
  "resources-list": { applicable: true, targets: ANY },
  "resources-read-text": { applicable: false, reason: RESOURCES },
  "resources-read-binary": { applicable: false, reason: RESOURCES },
  "resources-templates-read": { applicable: false, reason: RESOURCES },
  "resources-subscribe": { applicable: false, reason: RESOURCES },
  "resources-unsubscribe": { applicable: false, reason: RESOURCES },
  // The endpoint declares prompts (the agent's enabled skills; none in these fixtures): the
  // listing itself is well-formed, the suite's own test_* prompts do not exist.
  "prompts-list": { applicable: true, targets: ANY },
  "prompts-get-simple": { applicable: false, reason: PROMPTS },
  "prompts-get-with-args": { applicable: false, reason: PROMPTS },
  "prompts-get-embedded-resource": { applicable: false, reason: PROMPTS },
  "prompts-get-with-image": { applicable: false, reason: PROMPTS },
  "dns-rebinding-protection": {
    applicable: true,
    targets: ANY,
    // The 4xx must come from the Host/Origin guard, not from a missing token.
    verify: (checks) => {
      const rejected = details(checks, "localhost-host-rebinding-rejected") as
        | { statusCode?: number; body?: { error?: { code?: string } } }
        | undefined;
      return [
        ...same(
          "rebinding refusal",
          [rejected?.statusCode, rejected?.body?.error?.code],
          [403, "AIRLOCK_API_HOST_NOT_ALLOWED"],
        ),
        ...succeeded(checks, ["localhost-host-valid-accepted"]),
      ];
    },
  },
};

export interface Outcome {
  passed: boolean;
  /** Why it did not pass: failed checks' messages, then right-reason problems. */
  problems: string[];
}

/** A scenario passes when no check failed, at least one succeeded, and `verify` finds nothing wrong. */
export function judge(
  checks: Check[] | undefined,
  scenario: Applicable | NotApplicable,
  cx: Context,
): Outcome {
  if (checks === undefined) return { passed: false, problems: ["the suite recorded no result"] };
  const failed = checks
    .filter((c) => c.status === "FAILURE")
    .map((c) => `${c.id}: ${c.errorMessage ?? "failed"}`);
  const none = checks.some((c) => c.status === "SUCCESS") ? [] : ["no check succeeded"];
  const wrong = scenario.applicable && scenario.verify !== undefined ? scenario.verify(checks, cx) : [];
  const problems = [...failed, ...none, ...wrong];
  return { passed: problems.length === 0, problems };
}
