// The MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in package.json) in
// CI: every server scenario against `airlock-plugin dev --http` serving the conformance plugin
// (test/conformance/mcp-plugin, bare tool names), and the scenarios that call no fixed tool
// name against a real host's agent endpoint (`airlock serve`, `/mcp/<agent>`), both through a
// proxy that adds the bearer token the suite does not send.
// Expectations are what issue 12 requires: every applicable scenario passes, for the right
// reason (scenarios.ts); every not-applicable one fails and is listed in docs/mcp.md.
// KNOWN_FAILING is the one list of applicable scenarios that fail on today's server;
// a listed scenario that passes fails this suite, so the list only ever shrinks.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type Check,
  type Endpoint,
  listServerScenarios,
  PLUGIN_DIR,
  runConformance,
  startAgentHost,
  startPluginDev,
} from "./mcp/processes.ts";
import { type Context, judge, SCENARIOS, type Target } from "./mcp/scenarios.ts";

/**
 * `<target>:<scenario>` → why it fails today (empty: every applicable scenario passes). An entry
 * whose scenario passes is an error ("remove it"), one whose scenario still fails is a known
 * failure, reported with its reason.
 */
const KNOWN_FAILING: Record<string, string> = {};

const AGENT = "conformance";
const NAMESPACE = "conformance";

let tools: string[] = [];
const results = new Map<Target, Map<string, Check[]>>();
const endpoints: Endpoint[] = [];

function context(target: Target): Context {
  const name = (tool: string) => (target === "dev" ? tool : `${NAMESPACE}__${tool}`);
  return { name, tools: tools.map(name).sort() };
}

beforeAll(async () => {
  // Sequential on purpose: the host's set-up builds the plugin dir that dev builds too.
  const agent = await startAgentHost(AGENT);
  endpoints.push(agent);
  const manifest = JSON.parse(await readFile(resolve(PLUGIN_DIR, "dist/airlock.json"), "utf8")) as {
    tools: Array<{ name: string }>;
  };
  tools = manifest.tools.map((t) => t.name);
  const dev = await startPluginDev();
  endpoints.push(dev);
  results.set("dev", await runConformance(dev.url, ["--suite", "all"]));
  const nameless = Object.entries(SCENARIOS).flatMap(([name, s]) =>
    s.applicable && s.targets.includes("agent") ? [name] : [],
  );
  const onAgent = new Map<string, Check[]>();
  for (const scenario of nameless) {
    for (const [name, checks] of await runConformance(agent.url, ["--scenario", scenario]))
      onAgent.set(name, checks);
  }
  results.set("agent", onAgent);
  // dozens of conformance runner processes in a row: over 120 s on a loaded 2-core machine
}, 360_000);

afterAll(async () => {
  await Promise.all(endpoints.map((e) => e.close()));
});

test("the scenario table covers exactly the suite's server scenarios", async () => {
  expect(Object.keys(SCENARIOS).sort()).toEqual((await listServerScenarios()).sort());
});

test("every known failure names an applicable scenario of a target it runs on", () => {
  for (const key of Object.keys(KNOWN_FAILING)) {
    const [target, name] = key.split(":") as [Target, string];
    const scenario = SCENARIOS[name];
    expect(scenario?.applicable && scenario.targets.includes(target), key).toBe(true);
  }
});

test("docs/mcp.md lists every not-applicable scenario with its reason", async () => {
  const doc = await readFile(resolve(import.meta.dirname, "../../docs/mcp.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Conformance"));
  expect(doc).toContain("## Conformance");
  for (const [name, s] of Object.entries(SCENARIOS)) {
    if (!s.applicable) expect(section, name).toContain(`\`${name}\``);
  }
});

for (const target of ["dev", "agent"] as const) {
  describe(`${target === "dev" ? "airlock-plugin dev --http" : "agent endpoint /mcp/<agent>"}`, () => {
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      if (scenario.applicable && !scenario.targets.includes(target)) continue;
      if (!scenario.applicable && target === "agent") continue;
      const known = KNOWN_FAILING[`${target}:${name}`];
      const label = !scenario.applicable
        ? `${name} is not applicable and fails (${scenario.reason.split(":")[0]})`
        : known === undefined
          ? `${name} passes`
          : `${name} is a known failure: ${known.slice(0, 60)}…`;
      test(label, () => {
        const outcome = judge(results.get(target)?.get(name), scenario, context(target));
        if (!scenario.applicable) {
          expect(
            outcome.passed,
            `${name} passes: it is listed as not applicable — move it to the applicable ones`,
          ).toBe(false);
        } else if (known === undefined) {
          expect(outcome.problems, `${name} on ${target}`).toEqual([]);
        } else {
          expect(outcome.passed, `${target}:${name} passes now: remove it from KNOWN_FAILING`).toBe(false);
        }
      });
    }
  });
}
