// The files `airlock-plugin init` writes. Invariant: as generated, the scaffold builds, checks
// and packs cleanly (a test runs the three commands on it through the CLI entry), and its test
// uses `testTool` from `@airlock/sdk/testing`.
import { SDK_VERSION } from "../manifest.ts";

export interface ScaffoldOptions {
  namespace: string;
  tool: string;
}

export function scaffoldFiles({ namespace, tool }: ScaffoldOptions): Record<string, string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return {
    "package.json": json({
      name: namespace,
      version: "0.1.0",
      private: true,
      type: "module",
      description: `Airlock plugin ${namespace}.`,
      scripts: {
        build: "airlock-plugin build",
        check: "airlock-plugin check",
        pack: "airlock-plugin pack",
        test: "vitest run",
      },
      dependencies: { "@airlock/sdk": `^${SDK_VERSION}`, zod: "^4.1.0" },
      // @airlock/sdk/testing runs the tools in a real (throwaway) host: @airlock/host is its peer.
      devDependencies: { "@airlock/host": "*", vitest: "^4.0.0" },
    }),
    "tsconfig.json": json({
      compilerOptions: {
        target: "es2023",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        verbatimModuleSyntax: true,
        skipLibCheck: true,
      },
      include: ["src", "test"],
    }),
    ".gitignore": "node_modules/\ndist/\n*.tgz\n",
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

An Airlock plugin. Its tools are called \`${namespace}:<tool>\`.

## Tools
- \`${tool}\`: greets someone by name.

## Develop
\`\`\`sh
npm install
npx airlock-plugin build     # bundle + generate dist/airlock.json from the code
npx airlock-plugin check     # manifest validation + strict-mode lint (exit 1 on any violation)
npx airlock-plugin pack      # writes ${namespace}-0.1.0.tgz and prints its sha512 integrity
npm test                     # runs test/*.test.ts against a throwaway Airlock host (@airlock/host)
\`\`\`

Rules the build enforces: tool names are camelCase or snake_case; every parameter has a
\`.describe()\`; use \`.nullable()\` instead of \`.optional()\`; no \`.url()\`, \`.email()\`,
\`.uuid()\`, \`.datetime()\` (validate inside \`execute()\`); no \`z.record(z.unknown())\`.
The code runs in a sandbox: no Node built-ins, reach the world through \`ctx\`.
`,
  };
}
