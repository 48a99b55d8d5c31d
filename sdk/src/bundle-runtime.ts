// What a built bundle runs at load: it turns the plugin's definePlugin() result into the
// BundleExports contract (manifest.ts) on `globalThis.__airlockPlugin`. The build's generated
// wrapper entry calls `installPlugin(plugin)`; nothing else should.
// Input validation: the HOST validates every input against the JSON Schema the build generated
// from the tool's real Zod schema (ajv, before the call reaches the sandbox). So by default
// (no `runtimeZod`: the bundle's `zod` is the stand-in of runtime/schema-stub.ts) the tool
// function hands the input to `execute` as the host delivered it, without parsing.
// With `definePlugin({ runtimeZod: true })` the bundle carries real Zod and each tool function
// ALSO parses its input with the tool's own schema before `execute` sees it; a mismatch
// rejects with AIRLOCK_SDK_INPUT_INVALID listing the paths.
import { isDefinedPlugin } from "./define-plugin.ts";
import { sdkError } from "./error-codes.ts";
import type { BundleExports } from "./manifest.ts";

/**
 * manifest.ts's PLUGIN_GLOBAL, restated: importing a value from manifest.ts would pull its Zod
 * manifest schemas into every plugin bundle. A test keeps the two equal.
 */
export const BUNDLE_GLOBAL = "__airlockPlugin";

/** Issue paths as `$.a.b[0]`, the same form as manifest and lint paths. */
function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>(
    (acc, seg) => (typeof seg === "number" ? `${acc}[${seg}]` : `${acc}.${String(seg)}`),
    "$",
  );
}

/** The BundleExports of a plugin definition. */
export function toBundleExports(plugin: unknown): BundleExports {
  if (!isDefinedPlugin(plugin)) {
    throw sdkError(
      "AIRLOCK_SDK_BUILD_ENTRY",
      "the plugin entry's default export is not a definePlugin() result",
    );
  }
  const tools: BundleExports["tools"] = {};
  for (const tool of plugin.tools) {
    tools[tool.name] = async (input: unknown, ctx: unknown) => {
      if (!plugin.runtimeZod) return tool.execute(input as never, ctx as Parameters<typeof tool.execute>[1]);
      const parsed = tool.parameters.safeParse(input);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => ({ path: issuePath(i.path), message: i.message }));
        throw sdkError(
          "AIRLOCK_SDK_INPUT_INVALID",
          `input of ${tool.name} does not match its parameters: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
          { details: { issues } },
        );
      }
      return tool.execute(parsed.data, ctx as Parameters<typeof tool.execute>[1]);
    };
  }
  return Object.freeze({ namespace: plugin.namespace, version: plugin.version, tools: Object.freeze(tools) });
}

/** Assigns `globalThis.__airlockPlugin`; called once by the bundle's wrapper entry. */
export function installPlugin(plugin: unknown): void {
  (globalThis as Record<string, unknown>)[BUNDLE_GLOBAL] = toBundleExports(plugin);
}
