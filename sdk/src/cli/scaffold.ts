// The files `airlock-plugin init` writes. Invariant: as generated, the scaffold builds, checks
// and packs cleanly (a test runs the three commands on it through the CLI entry), and its test
// uses `testTool` from `@airlock/sdk/testing`.
import { SDK_VERSION } from "../manifest.ts";
import type { ScaffoldLinks } from "./scaffold-links.ts";

export interface ScaffoldOptions {
  namespace: string;
  tool: string;
  /** Where the SDK comes from (scaffold-links.ts); without it the dependencies are plain ranges. */
  links?: ScaffoldLinks;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function packageJson(namespace: string, links: ScaffoldLinks | undefined): string {
  const devDependencies: Record<string, string> = {
    // @airlock/sdk/testing runs the tools in a real (throwaway) host: @airlock/host is its peer.
    "@airlock/host": links?.host === undefined ? `^${SDK_VERSION}` : `file:${links.host}`,
    "@types/node": links?.versions["@types/node"] ?? "^24.0.0",
    node: links === undefined ? "^24.0.0" : links.node,
    typescript: links?.versions.typescript ?? "^5.9.0",
    vitest: links?.versions.vitest ?? "^4.0.0",
  };
  return json({
    name: namespace,
    version: "0.1.0",
    private: true,
    type: "module",
    description: `Airlock plugin ${namespace}.`,
    engines: { node: ">=24" },
    scripts: {
      build: "airlock-plugin build",
      check: "airlock-plugin check",
      pack: "airlock-plugin pack",
      test: "airlock-plugin test",
      typecheck: "tsc -p .",
    },
    dependencies: {
      "@airlock/sdk": links === undefined ? `^${SDK_VERSION}` : `file:${links.sdk}`,
      zod: links?.versions.zod ?? "^4.1.0",
    },
    devDependencies,
  });
}

// Written as the repository's formatter (biome) writes JSON, so a format check passes on it.
const TSCONFIG = `{
  "compilerOptions": {
    "target": "es2024",
    "lib": ["es2024"],
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "strict": true,
    "noEmit": true,
    "allowImportingTsExtensions": true,
    "verbatimModuleSyntax": true,
    "skipLibCheck": true
  },
  "include": ["src", "test", "vitest.config.ts"]
}
`;

const VITEST_CONFIG = `// The plugin's own test set-up, so \`npx vitest run\` and \`airlock-plugin test\` find test/*.test.ts
// wherever the project lives. The sandbox (isolated-vm) needs Node's --no-node-snapshot.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    execArgv: ["--no-node-snapshot"],
    testTimeout: 30_000,
  },
});
`;

export function scaffoldFiles({ namespace, tool, links }: ScaffoldOptions): Record<string, string> {
  return {
    "package.json": packageJson(namespace, links),
    "tsconfig.json": TSCONFIG,
    "vitest.config.ts": VITEST_CONFIG,
    // keys/ holds the private signing key (airlock-plugin keygen --out keys): never commit it.
    ".gitignore": "node_modules/\ndist/\n*.tgz\nkeys/\n*.key\n",
    "src/index.ts": `// The plugin's entry: its default export is the definePlugin() result the build reads.
import { definePlugin, defineTool } from "@airlock/sdk";
import { z } from "zod";

export const ${tool} = defineTool({
  name: "${tool}",
  description: "Greets someone by name. Use it when the user asks to be greeted.",
  category: "general",
  inputExamples: [{ label: "minimal", input: { name: "Ada", excited: null } }],
  parameters: z.object({
    name: z.string().describe("Who to greet."),
    excited: z.boolean().nullable().describe("End with an exclamation mark; defaults to false."),
  }),
  annotations: { title: "Greet", readOnlyHint: true, idempotentHint: true },
  presentation: { label: "Greet", icon: "wave", tone: "info", group: "${namespace}" },
  execute: async (input, ctx) => {
    await ctx.audit.log({ action: "greet", details: { name: input.name } });
    return { content: [{ type: "text", text: \`Hello, \${input.name}\${input.excited ? "!" : "."}\` }] };
  },
});

export default definePlugin({
  namespace: "${namespace}",
  version: "0.1.0",
  description: "A starter Airlock plugin.",
  engine: "^1.0.0",
  tools: [${tool}],
});
`,
    [`test/${tool}.test.ts`]: `import { fileURLToPath } from "node:url";
import { testTool } from "@airlock/sdk/testing";
import { describe, expect, it } from "vitest";

// testTool builds this plugin and calls the tool in a throwaway Airlock host (real sandbox).
const pluginDir = fileURLToPath(new URL("..", import.meta.url));

describe("${tool}", () => {
  it("greets by name", async () => {
    const result = await testTool({ pluginDir, tool: "${tool}", input: { name: "Ada", excited: true } });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
  });

  it("refuses input that does not match the schema", async () => {
    const result = await testTool({ pluginDir, tool: "${tool}", input: { name: 42, excited: null } });
    expect(result.isError).toBe(true);
  });
});
`,
    "README.md": `# ${namespace}

An Airlock plugin. Its tools are called \`${namespace}:<tool>\` (\`${namespace}__<tool>\` in MCP clients).

## Tools
- \`${tool}\`: greets someone by name.

## Develop
\`\`\`sh
npm install                  # @airlock/sdk and @airlock/host come from the Airlock installation that ran init
npx airlock-plugin build     # bundle + generate dist/airlock.json from the code
npx airlock-plugin check     # manifest validation + strict-mode lint (exit 1 on any violation)
npx airlock-plugin test      # test/*.test.ts in a throwaway Airlock host (real sandbox); or npx vitest run
npx tsc -p .                 # type check
npx airlock-plugin dev --http 0   # serve the tools over MCP to try them in a client
\`\`\`

## Publish and install
\`\`\`sh
npx airlock-plugin keygen --out keys --name me    # keys/ is in .gitignore: never commit me.key
npx airlock-plugin publish --registry <registry URL> --key keys/me.key   # AIRLOCK_REGISTRY_TOKEN=…
npx airlock install ${namespace}@^0.1.0 --registry <registry URL> --trust-key keys/me.pub
\`\`\`
The host remembers \`keys/me.pub\` for \`${namespace}\`, so \`airlock plugins upgrade ${namespace}\` needs no flag.
Ship a new version by bumping \`version\` in \`src/index.ts\`, then \`build\` and \`publish\` again.

## Where the SDK comes from
\`package.json\` names \`@airlock/sdk\` and \`@airlock/host\` as \`file:\` dependencies on the Airlock
installation that ran \`airlock-plugin init\`: \`npm install\` links them without any registry. zod,
vitest, typescript and the Node 24 runtime (\`node\`) come from the npm registry (or its cache). On
another machine, point those two paths at that machine's Airlock checkout.

## Rules the build enforces
Tool names are camelCase or snake_case; every parameter has a \`.describe()\`; use \`.nullable()\` instead of
\`.optional()\`; no \`.url()\`, \`.email()\`, \`.uuid()\`, \`.datetime()\` (validate inside \`execute()\`);
no \`z.record(z.unknown())\`. The code runs in a sandbox: no Node built-ins, reach the world through \`ctx\`.
`,
  };
}
