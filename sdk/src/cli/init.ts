// `airlock-plugin init <dir> [--namespace <ns>] [--tool <name>]`: scaffolds a plugin.
// Refuses a non-empty directory (AIRLOCK_SDK_INIT_EXISTS) so nothing of the author's is overwritten.
import { existsSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { sdkError } from "../error-codes.ts";
import { NAMESPACE_PATTERN, RESERVED_NAMESPACES, TOOL_NAME_PATTERN } from "../names.ts";
import { parse, reportError, stringOption } from "./args.ts";
import { scaffoldFiles } from "./scaffold.ts";
import { scaffoldLinks } from "./scaffold-links.ts";
import { EXIT, type PluginCliCommand } from "./types.ts";

/** A namespace derived from a folder name: lowercase, `[a-z0-9-]`, starting with a letter. */
export function namespaceFromDir(dir: string): string {
  return basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .replace(/-+$/, "")
    .slice(0, 32);
}

export const initCommand: PluginCliCommand = {
  name: "init",
  summary: "scaffold a plugin (one tool, one test, a README) that builds as generated",
  help: `Usage: airlock-plugin init <dir> [--namespace <ns>] [--tool <name>]

Creates <dir> (it must not exist or be empty) with:
  package.json        @airlock/sdk and @airlock/host as file: dependencies on the Airlock
                      installation running this command (npm install needs no registry for
                      them), zod, vitest, typescript and node pinned to its versions
  tsconfig.json, vitest.config.ts
  src/index.ts        definePlugin({...}) with one tool
  test/<tool>.test.ts a test using testTool from @airlock/sdk/testing
  README.md, .gitignore (node_modules/, dist/, *.tgz, keys/)
The result builds, checks, packs, type-checks and tests as generated, in any folder.

Options:
  --namespace <ns>  plugin namespace, ^[a-z][a-z0-9-]{1,31}$, not reserved
                    (default: derived from the folder name)
  --tool <name>     the tool's camelCase or snake_case name (default: greet)
  -h, --help        show this help

Example:
  airlock-plugin init my-plugin && cd my-plugin && airlock-plugin build
`,
  async run(args, io) {
    try {
      const parsed = parse(args, { namespace: { type: "string" }, tool: { type: "string" } }, 1);
      if (parsed.help) {
        io.stdout(this.help);
        return EXIT.OK;
      }
      const target = parsed.positionals[0];
      if (target === undefined)
        throw sdkError("AIRLOCK_SDK_USAGE", "init needs a directory: airlock-plugin init <dir>");
      const dir = resolve(io.cwd, target);
      const namespace = stringOption(parsed, "namespace") ?? namespaceFromDir(dir);
      const tool = stringOption(parsed, "tool") ?? "greet";
      if (!NAMESPACE_PATTERN.test(namespace) || RESERVED_NAMESPACES.has(namespace)) {
        throw sdkError(
          "AIRLOCK_SDK_USAGE",
          `"${namespace}" is not a usable namespace (${NAMESPACE_PATTERN}, not reserved): pass --namespace <ns>`,
        );
      }
      if (!TOOL_NAME_PATTERN.test(tool))
        throw sdkError(
          "AIRLOCK_SDK_USAGE",
          `--tool "${tool}" must be camelCase or snake_case (${TOOL_NAME_PATTERN})`,
        );
      if (existsSync(dir) && (await readdir(dir)).length > 0) {
        throw sdkError(
          "AIRLOCK_SDK_INIT_EXISTS",
          `${dir} is not empty; init writes only into a new or empty directory`,
        );
      }
      const links = scaffoldLinks();
      for (const [file, content] of Object.entries(scaffoldFiles({ namespace, tool, links }))) {
        const path = join(dir, file);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, content);
      }
      const where = relative(io.cwd, dir) || ".";
      io.stdout(`created ${namespace} in ${where} with tool ${namespace}:${tool}\n`);
      io.stdout(`  @airlock/sdk from ${links.sdk} (file: dependency, no registry needed)\n`);
      if (links.host === undefined)
        io.stdout("  note: no @airlock/host beside this SDK; `airlock-plugin test` and `dev` need it\n");
      io.stdout(`next: cd ${where} && npm install && npx airlock-plugin build && npx airlock-plugin test\n`);
      return EXIT.OK;
    } catch (err) {
      return reportError(err, io);
    }
  },
};
