// esbuild plugins and error mapping of the build.
//  - forbidNodeBuiltins: any `node:*` import, or a bare import of a Node built-in that the plugin
//    does not itself provide from node_modules, fails with AIRLOCK_SDK_BUILD_FORBIDDEN_IMPORT
//    naming the import and the importing file.
//  - singleZod: every `zod` import resolves as the plugin would resolve it, so the build-time
//    describer and the plugin share one Zod copy.
//  - zodStandIn: (sandbox bundle, no `runtimeZod`) every `zod`/`zod/*` import becomes a
//    generated module exporting the real entry's export names, each bound to the stand-in of
//    runtime/schema-stub.ts (pure calls, so unused names are tree-shaken away).
//  - buildFailure: maps esbuild's failure (unresolvable imports included) to one AirlockError.
import { builtinModules } from "node:module";
import { relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Message, OnResolveArgs, Plugin, PluginBuild, ResolveResult } from "esbuild";
import { sdkError } from "../error-codes.ts";
import type { AirlockError } from "../errors.ts";

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith("_")));
const INNER = { airlockInner: true };

function isBuiltin(spec: string): boolean {
  if (spec.startsWith("node:")) return true;
  const [head = ""] = spec.split("/");
  return BUILTINS.has(head) || BUILTINS.has(spec);
}

export function forbidNodeBuiltins(pluginDir: string): Plugin {
  return {
    name: "airlock-forbid-node-builtins",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === INNER || !isBuiltin(args.path)) return undefined;
        if (!args.path.startsWith("node:")) {
          const found = await build.resolve(args.path, {
            kind: args.kind,
            resolveDir: args.resolveDir,
            pluginData: INNER,
          });
          if (found.errors.length === 0 && !found.external && found.path.includes("node_modules"))
            return found;
        }
        const where =
          args.importer === "" ? "the entry" : relative(pluginDir, args.importer) || args.importer;
        return {
          errors: [
            {
              text: `forbidden import "${args.path}" in ${where}: Node built-ins do not exist in the plugin sandbox; use ctx capabilities (ctx.fetch, ctx.state, ctx.artifacts) instead`,
            },
          ],
        };
      });
    },
  };
}

/** Resolves a `zod` import from the plugin's folder (one copy of Zod for the whole bundle). */
function resolveZod(build: PluginBuild, args: OnResolveArgs, pluginDir: string): Promise<ResolveResult> {
  return build.resolve(args.path, { kind: args.kind, resolveDir: pluginDir, pluginData: INNER });
}

export function singleZod(pluginDir: string): Plugin {
  return {
    name: "airlock-single-zod",
    setup(build) {
      build.onResolve({ filter: /^zod(\/.*)?$/ }, async (args) => {
        if (args.pluginData === INNER) return undefined;
        const found = await resolveZod(build, args, pluginDir);
        return found.errors.length > 0
          ? { errors: found.errors }
          : { path: found.path, external: found.external };
      });
    },
  };
}

const STUB_MODULE = fileURLToPath(new URL("../runtime/schema-stub.ts", import.meta.url));
const STUB_NAMESPACE = "airlock-zod-stub";

/** The stand-in module's source for a Zod entry exporting `names`. */
export function standInSource(names: readonly string[]): string {
  const lines = [`import { zodMember } from ${JSON.stringify(STUB_MODULE)};`];
  const exported: string[] = [];
  names.forEach((name, i) => {
    lines.push(`const _${i} = /* @__PURE__ */ zodMember(${JSON.stringify(name)});`);
    exported.push(`_${i} as ${JSON.stringify(name)}`);
  });
  if (!names.includes("default")) {
    lines.push('const _default = /* @__PURE__ */ zodMember("default");');
    exported.push("_default as default");
  }
  lines.push(`export { ${exported.join(", ")} };`);
  return lines.join("\n");
}

export function zodStandIn(pluginDir: string): Plugin {
  return {
    name: "airlock-zod-stand-in",
    setup(build) {
      build.onResolve({ filter: /^zod(\/.*)?$/ }, async (args) => {
        if (args.pluginData === INNER) return undefined;
        const found = await resolveZod(build, args, pluginDir);
        if (found.errors.length > 0) return { errors: found.errors };
        return { path: args.path, namespace: STUB_NAMESPACE, pluginData: { real: found.path } };
      });
      build.onLoad({ filter: /.*/, namespace: STUB_NAMESPACE }, async (args) => {
        const real = (args.pluginData as { real: string }).real;
        const names = Object.keys(await import(pathToFileURL(real).href)).sort();
        return { contents: standInSource(names), loader: "js", resolveDir: pluginDir };
      });
    },
  };
}

function where(m: Message, pluginDir: string): string {
  return m.location ? `${relative(pluginDir, m.location.file) || m.location.file}:${m.location.line}` : "";
}

/** One AirlockError for a failed esbuild run: FORBIDDEN_IMPORT when any import could not be bundled. */
export function buildFailure(errors: readonly Message[], pluginDir: string): AirlockError {
  const imports = errors.flatMap((m) => {
    const forbidden = /^forbidden import "([^"]+)" in (.+?):/.exec(m.text);
    if (forbidden) return [{ import: forbidden[1] ?? "", file: forbidden[2] ?? "", text: m.text }];
    const unresolved = /^Could not resolve "([^"]+)"/.exec(m.text);
    if (!unresolved) return [];
    const spec = unresolved[1] ?? "";
    const file = where(m, pluginDir);
    const why = isBuiltin(spec)
      ? "a Node built-in, which does not exist in the plugin sandbox"
      : "a module that cannot be resolved (install it, or fix the path)";
    return [{ import: spec, file, text: `forbidden import "${spec}" in ${file}: ${why}` }];
  });
  if (imports.length > 0) {
    return sdkError("AIRLOCK_SDK_BUILD_FORBIDDEN_IMPORT", imports.map((i) => i.text).join("\n"), {
      details: { imports: imports.map((i) => ({ import: i.import, file: i.file })) },
    });
  }
  const text = errors.map((m) => `${where(m, pluginDir)} ${m.text}`.trim()).join("\n");
  return sdkError("AIRLOCK_SDK_BUILD_FAILED", `esbuild could not bundle the plugin:\n${text}`);
}
