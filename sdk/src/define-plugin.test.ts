import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BUNDLE_GLOBAL, installPlugin } from "./bundle-runtime.ts";
import { definePlugin, isDefinedPlugin, type PluginDefinitionInput } from "./define-plugin.ts";
import { defineTool } from "./define-tool.ts";
import { PLUGIN_GLOBAL } from "./manifest.ts";

const echoDefinition = {
  name: "echo",
  description: "Echoes its text.",
  requiredSecrets: [{ key: "acme_api_key", type: "text" as const }],
  parameters: z.object({ text: z.string().describe("Text to echo.") }),
  execute: async (input: { text: string }) => input.text.toUpperCase(),
};
const echo = defineTool(echoDefinition);
const base = { namespace: "acme-notes", version: "1.2.3", engine: "^1.0.0", tools: [echo] };

function refusal(patch: Record<string, unknown>): { code: string; message: string } {
  try {
    definePlugin({ ...base, ...patch } as PluginDefinitionInput);
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error("definePlugin accepted the definition");
}

describe("definePlugin", () => {
  it("accepts a plugin and fills the defaults", () => {
    const plugin = definePlugin(base);
    expect(isDefinedPlugin(plugin)).toBe(true);
    expect(plugin).toMatchObject({
      namespace: "acme-notes",
      description: "",
      knowledge: null,
      egress: [],
      limits: {},
      runtimeZod: false,
    });
    expect(definePlugin({ ...base, runtimeZod: true }).runtimeZod).toBe(true);
    expect(refusal({ runtimeZod: "yes" })).toMatchObject({
      code: "AIRLOCK_SDK_PLUGIN_INVALID",
      message: expect.stringContaining("runtimeZod"),
    });
  });

  it.each([
    ["Acme", "must match"],
    ["a", "must match"],
    ["acme_notes", "must match"],
    ["airlock", "reserved"],
    ["system", "reserved"],
  ])("refuses namespace %s", (namespace, why) => {
    const err = refusal({ namespace });
    expect(err.code).toBe("AIRLOCK_SDK_NAMESPACE_INVALID");
    expect(err.message).toContain(why);
  });

  it("refuses a tool whose <namespace>__<tool> is longer than 64 characters", () => {
    const long = defineTool({ ...echoDefinition, name: `t${"x".repeat(40)}`, requiredSecrets: [] });
    const err = refusal({ namespace: `n${"s".repeat(30)}`, tools: [long] });
    expect(err.code).toBe("AIRLOCK_SDK_NAMESPACE_INVALID");
    expect(err.message).toContain("64");
  });

  it("refuses a bad version, a missing engine, no tools, duplicates and non-tools", () => {
    expect(refusal({ version: "1.0" }).message).toContain("version");
    expect(refusal({ engine: "" }).message).toContain("engine");
    expect(refusal({ tools: [] }).message).toContain("tools");
    expect(refusal({ tools: [echo, echo] }).message).toContain("duplicates");
    expect(refusal({ tools: [{ name: "x" }] }).message).toContain("tools[0]");
  });

  it("accepts egress bound to a declared secret and refuses one bound to an undeclared secret", () => {
    const egress = [{ host: "api.acme.com", secrets: ["acme_api_key"] }];
    expect(definePlugin({ ...base, egress }).egress).toEqual(egress);
    expect(refusal({ egress: [{ host: "api.acme.com", secrets: ["other_key"] }] }).message).toContain(
      "egress[0].secrets",
    );
    expect(refusal({ egress: [{ host: "https://api.acme.com" }] }).message).toContain("egress[0].host");
  });

  it("refuses an unknown limit, a non-positive limit and an unknown knowledge level", () => {
    expect(definePlugin({ ...base, limits: { cpuMs: 500 } }).limits).toEqual({ cpuMs: 500 });
    expect(refusal({ limits: { cpu: 5 } }).message).toContain("limits.cpu");
    expect(refusal({ limits: { wallMs: 0 } }).message).toContain("limits.wallMs");
    expect(refusal({ knowledge: "admin" }).message).toContain("knowledge");
  });
});

describe("bundle runtime", () => {
  it("installs under the manifest contract's global name", () => {
    expect(BUNDLE_GLOBAL).toBe(PLUGIN_GLOBAL);
  });

  it("installs BundleExports that hand the host-validated input to execute as is by default", async () => {
    installPlugin(definePlugin(base));
    const exportsOf = (globalThis as Record<string, unknown>)[PLUGIN_GLOBAL] as {
      tools: Record<string, (input: unknown, ctx: unknown) => Promise<unknown>>;
    };
    await expect(exportsOf.tools.echo?.({ text: "hi" }, {})).resolves.toBe("HI");
    await expect(exportsOf.tools.echo?.({ text: 3 }, {})).rejects.toBeInstanceOf(TypeError);
    delete (globalThis as Record<string, unknown>)[PLUGIN_GLOBAL];
  });

  it("installs BundleExports whose tools parse input before execute with runtimeZod", async () => {
    installPlugin(definePlugin({ ...base, runtimeZod: true }));
    const exportsOf = (globalThis as Record<string, unknown>)[PLUGIN_GLOBAL] as {
      namespace: string;
      tools: Record<string, (input: unknown, ctx: unknown) => Promise<unknown>>;
    };
    expect(exportsOf.namespace).toBe("acme-notes");
    await expect(exportsOf.tools.echo?.({ text: "hi" }, {})).resolves.toBe("HI");
    await expect(exportsOf.tools.echo?.({ text: 3 }, {})).rejects.toMatchObject({
      code: "AIRLOCK_SDK_INPUT_INVALID",
    });
    delete (globalThis as Record<string, unknown>)[PLUGIN_GLOBAL];
  });
});
