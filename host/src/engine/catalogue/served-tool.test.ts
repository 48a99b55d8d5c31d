import type { ToolUses } from "@airlock/sdk";
import type { PluginManifest, ToolAnnotations, ToolManifest } from "@airlock/sdk/manifest";
import { describe, expect, it } from "vitest";
import { servedLabels } from "./served-tool.ts";

const tool = (uses: ToolUses | undefined, annotations: ToolAnnotations = {}): ToolManifest => ({
  name: "t",
  description: "d",
  category: "c",
  inputSchema: {},
  annotations,
  requiredSecrets: [],
  inputExamples: [],
  harness: null,
  ...(uses === undefined ? {} : { uses }),
});
const manifest = { namespace: "p", tools: [] } as unknown as PluginManifest;
const hints = (uses: ToolUses, annotations: ToolAnnotations = {}, level?: string | null) => {
  const { title: _title, ...rest } = servedLabels(tool(uses, annotations), manifest, level).annotations;
  return rest;
};
const ALL_TRUE = { readOnlyHint: true, destructiveHint: true, idempotentHint: true, openWorldHint: true };

describe("servedLabels: the derivation table", () => {
  it.each<[string, ToolUses, ToolAnnotations]>([
    [
      "nothing",
      {},
      { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    ],
    [
      "knowledge read",
      { knowledge: "read" },
      { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    ],
    ["knowledge write", { knowledge: "write" }, { readOnlyHint: false, destructiveHint: false }],
    ["knowledge manage", { knowledge: "manage" }, { readOnlyHint: false, destructiveHint: true }],
    ["state read", { state: "read" }, { readOnlyHint: true }],
    ["state write", { state: "write" }, { readOnlyHint: false, destructiveHint: false }],
    ["artifacts take", { artifacts: ["take"] }, { readOnlyHint: true }],
    ["artifacts put", { artifacts: ["put"] }, { readOnlyHint: false }],
    [
      "a GET/HEAD fetch",
      { fetch: [{ host: "a.example", methods: ["GET", "HEAD"] }] },
      { readOnlyHint: true, openWorldHint: true },
    ],
    [
      "a POST fetch",
      { fetch: [{ host: "a.example", methods: ["POST"] }] },
      { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    ],
    [
      "a DELETE fetch",
      { fetch: [{ host: "a.example", methods: ["DELETE"] }] },
      { readOnlyHint: false, destructiveHint: true },
    ],
    ["models", { models: true }, { readOnlyHint: true, openWorldHint: true }],
    [
      "secrets and oauth only",
      { secrets: ["k"], oauth: ["acme"] },
      { readOnlyHint: true, openWorldHint: false },
    ],
  ])("%s", (_what, uses, expected) => {
    expect(hints(uses)).toMatchObject(expected);
  });

  it("overrides every author hint that claims more than the grants allow, and keeps the title", () => {
    const served = servedLabels(
      tool(
        { knowledge: "manage" },
        { title: "T", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      ),
      manifest,
    );
    expect(served.annotations).toEqual({
      title: "T",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
  });

  it("keeps idempotentHint only as the author says and only for a read-only tool", () => {
    expect(hints({}, { idempotentHint: true }).idempotentHint).toBe(true);
    expect(hints({}, {}).idempotentHint).toBe(false);
    expect(hints({ state: "write" }, { idempotentHint: true }).idempotentHint).toBe(false);
  });

  it("caps knowledge by the agent's level; none or null removes it", () => {
    expect(hints({ knowledge: "manage" }, {}, "read")).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
    });
    expect(hints({ knowledge: "manage" }, {}, "write")).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
    expect(servedLabels(tool({ knowledge: "write" }), manifest, "none").grants?.knowledge).toBeNull();
    expect(servedLabels(tool({ knowledge: "write" }), manifest, null).grants?.knowledge).toBeNull();
    expect(servedLabels(tool({ knowledge: "read" }), manifest, "manage").grants?.knowledge).toBe("read");
  });

  it("serves a legacy tool's author annotations unchanged, with no grants", () => {
    expect(servedLabels(tool(undefined, ALL_TRUE), manifest)).toEqual({
      annotations: ALL_TRUE,
      grants: null,
    });
  });

  it("names the manifest the grants come from by its hash", () => {
    const grants = servedLabels(tool({ secrets: ["k"] }), manifest)?.grants;
    expect(grants?.manifest).toMatch(/^sha256-[A-Za-z0-9+/]{43}=$/);
    const other = { namespace: "q", tools: [] } as unknown as PluginManifest;
    expect(servedLabels(tool({}), other).grants?.manifest).not.toBe(grants?.manifest);
  });
});
