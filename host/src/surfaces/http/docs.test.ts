// docs/api.md and docs/mcp.md cannot drift from the code: every route of the table and every
// error code of the catalogues has its line.
import { readFile } from "node:fs/promises";
import { expect, test } from "vitest";
import { MCP_ERRORS } from "../mcp/errors.ts";
import { adminRoutes } from "./app.ts";
import { API_ERRORS } from "./errors.ts";

const read = (name: string) => readFile(new URL(`../../../../docs/${name}`, import.meta.url), "utf8");

test("docs/api.md lists every route and every AIRLOCK_API_* code with its status", async () => {
  const doc = await read("api.md");
  for (const route of adminRoutes())
    expect(doc, route.path).toContain(`\`${route.method.toUpperCase()} ${route.path}`);
  for (const [code, spec] of Object.entries(API_ERRORS))
    expect(doc).toContain(`| \`${code}\` | ${spec.status} |`);
  expect(doc).toContain("`GET /healthz`");
  expect(doc).toContain("`GET /api/openapi.json`");
});

test("docs/mcp.md lists every AIRLOCK_MCP_* code", async () => {
  const doc = await read("mcp.md");
  for (const code of Object.keys(MCP_ERRORS)) expect(doc).toContain(`\`${code}\``);
});
