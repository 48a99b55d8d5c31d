// `@airlock/sdk/testing`: run a plugin's tools the way a host would, in tests.
// `testTool` builds the plugin with the SDK's build, installs it into a throwaway host
// (SQLite store in a temp dir, REAL sandbox in in-process mode, chosen grants) and calls one
// tool; `createTestHarness` keeps one host for several plugins and calls, so artifacts and
// knowledge cross between them.
// Layering: the host half lives in host/src/surfaces/testing/ and is loaded with a dynamic import of
// `@airlock/host/surfaces/testing/index.ts` (a peer dependency of this entry point), never statically.
import type { KnowledgeLevel } from "../context.ts";
import { AirlockError } from "../errors.ts";
import { packPluginForTest } from "./pack.ts";
import type {
  HostTestingModule,
  LoadedPlugin,
  TestHarness,
  TestHarnessOptions,
  TestToolOptions,
  TestToolResult,
} from "./types.ts";

export type * from "./types.ts";

const HOST_TESTING = "@airlock/host/surfaces/testing/index.ts";

async function loadHostHalf(): Promise<HostTestingModule> {
  try {
    return (await import(HOST_TESTING)) as HostTestingModule;
  } catch (cause) {
    throw new AirlockError(
      "AIRLOCK_SDK_TESTING_HOST_MISSING",
      `@airlock/sdk/testing needs its peer dependency @airlock/host (could not load ${HOST_TESTING})`,
      { status: 500, cause },
    );
  }
}

/** Starts a throwaway host for several plugins and calls. Always `close()` it. */
export async function createTestHarness(options: TestHarnessOptions = {}): Promise<TestHarness> {
  const hostHalf = await loadHostHalf();
  const level: KnowledgeLevel | null = options.knowledgeLevel === undefined ? "read" : options.knowledgeLevel;
  const host = await hostHalf.createHostTestHarness({
    knowledgeLevel: level,
    agent: options.agent ?? "test-agent",
    ...(options.egress ? { egress: options.egress } : {}),
  });
  return {
    async load(pluginDir: string): Promise<LoadedPlugin> {
      const { tarball, source } = await packPluginForTest(pluginDir);
      return host.install(tarball, source);
    },
    call: (toolId, input, callOptions = {}) => host.call(toolId, input, callOptions),
    setSecrets: (values) => host.setSecrets(values),
    setKnowledgeLevel: (lvl) => host.setKnowledgeLevel(lvl),
    seedKnowledge: (doc) => host.seedKnowledge(doc),
    auditActions: () => host.auditActions(),
    auditEntries: () => host.auditEntries(),
    close: () => host.close(),
  };
}

/** Builds the plugin at `pluginDir`, runs one tool with the given grants, and returns its result. */
export async function testTool(options: TestToolOptions): Promise<TestToolResult> {
  const harness = await createTestHarness({
    ...(options.knowledgeLevel !== undefined ? { knowledgeLevel: options.knowledgeLevel } : {}),
    ...(options.egress ? { egress: options.egress } : {}),
  });
  try {
    const plugin = await harness.load(options.pluginDir);
    const toolId = options.tool.includes(":") ? options.tool : `${plugin.namespace}:${options.tool}`;
    if (!plugin.tools.includes(toolId)) {
      throw new AirlockError(
        "AIRLOCK_SDK_TESTING_UNKNOWN_TOOL",
        `plugin ${plugin.namespace} has no tool "${options.tool}"; it has ${plugin.tools.join(", ")}`,
      );
    }
    if (options.secrets) await harness.setSecrets(options.secrets);
    return await harness.call(toolId, options.input, {
      ...(options.conversationId !== undefined ? { conversationId: options.conversationId } : {}),
      ...(options.conversation !== undefined ? { conversation: options.conversation } : {}),
      ...(options.attachments !== undefined ? { attachments: options.attachments } : {}),
    });
  } finally {
    await harness.close();
  }
}
