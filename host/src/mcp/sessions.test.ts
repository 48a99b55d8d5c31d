// The MCP session registry's bounds: idle sessions are reaped, one token cannot hold more than
// its share (nor evict another token's sessions), and the registry as a whole is capped.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { expect, test } from "vitest";
import { McpSessionRegistry, type Session } from "./http.ts";

function session(tokenId: string, lastSeen: number, closed: string[], name: string): Session {
  return {
    transport: new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => name }),
    close: async () => {
      closed.push(name);
    },
    agent: "alpha",
    tokenId,
    lastSeen,
  };
}

test("closes a token's own oldest session when it goes over its share, sparing other tokens", () => {
  const closed: string[] = [];
  const registry = new McpSessionRegistry(() => undefined, {
    maxPerToken: 2,
    maxSessions: 100,
    idleMs: 1000,
  });
  registry.add("victim", session("operator", 0, closed, "victim"), 0);
  for (const name of ["a1", "a2", "a3", "a4"]) registry.add(name, session("agent", 0, closed, name), 0);
  expect(closed).toEqual(["a1", "a2"]);
  expect(registry.get("victim")).toBeDefined();
  expect(registry.size).toBe(3);
});

test("reaps idle sessions and caps the registry, oldest first", () => {
  const closed: string[] = [];
  const registry = new McpSessionRegistry(() => undefined, { maxPerToken: 10, maxSessions: 2, idleMs: 1000 });
  registry.add("old", session("t1", 0, closed, "old"), 0);
  registry.add("fresh", session("t2", 1500, closed, "fresh"), 1500);
  expect(closed).toEqual(["old"]);
  registry.add("b", session("t3", 1600, closed, "b"), 1600);
  registry.add("c", session("t4", 1700, closed, "c"), 1700);
  expect(closed).toEqual(["old", "fresh"]);
  expect(registry.size).toBe(2);
});
