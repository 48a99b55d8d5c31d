// Types of `@airlock/sdk/testing`, and of the host half it loads at run time.
// The SDK may not import host/ (layering), so the host half's shape is restated here
// structurally; host/src/surfaces/testing/index.ts implements exactly `HostTestingModule`.
import type { Attachment, ConversationMessage, KnowledgeLevel, ToolResult } from "../context.ts";

/** What the operator allows for ctx.fetch in the test; it only narrows the manifest's egress. */
export interface TestEgressAllow {
  /** Host patterns every loaded plugin may reach (`api.example.com`, `*.example.com`, `*`). Default `*`: every host the manifest declares. */
  hosts?: string[];
  /**
   * Loopback/private targets allowed explicitly (`127.0.0.1`, `::1`, a CIDR or a host name), for
   * local test servers. Default none: loopback is refused, as in production.
   */
  allowPrivate?: string[];
}

export interface TestCallOptions {
  /** Default "test-conversation": calls of one harness share it unless told otherwise. */
  conversationId?: string;
  conversation?: ConversationMessage[];
  attachments?: Attachment[];
}

export interface TestToolOptions extends TestCallOptions {
  /** The plugin's directory (holding package.json); built with the SDK's build. */
  pluginDir: string;
  /** The tool's name within the plugin (`renderCsv`) or its id (`render:renderCsv`). */
  tool: string;
  input: unknown;
  /** Secret values for the test agent, by key (set before the call). */
  secrets?: Record<string, string>;
  /** The agent's knowledge level; null means ctx.knowledge is absent. Default "read". */
  knowledgeLevel?: KnowledgeLevel | null;
  egress?: TestEgressAllow;
}

/** A tool call's result, plus the stable code when the host refused or the call failed. */
export type TestToolResult = ToolResult & { errorCode?: string };

export interface TestHarnessOptions {
  knowledgeLevel?: KnowledgeLevel | null;
  egress?: TestEgressAllow;
  /** The agent slug the harness calls as. Default "test-agent". */
  agent?: string;
}

export interface LoadedPlugin {
  namespace: string;
  version: string;
  /** Canonical ids of its tools, harness tools included. */
  tools: string[];
}

export interface TestAuditEntry {
  kind: string;
  action: string;
  tool: string | null;
  allowed: boolean;
  success: boolean | null;
  error: string | null;
  details: Record<string, unknown> | null;
}

export interface SeedDocument {
  filename: string;
  content: string;
  mime?: string;
  /** Who wrote it; default "operator" (a document no plugin owns). */
  writer?: string;
}

/** Several plugins in one host with one store: artifacts and knowledge cross between calls. */
export interface TestHarness {
  /** Builds, packs and installs a plugin directory; enables its tools for the agent. */
  load(pluginDir: string): Promise<LoadedPlugin>;
  call(toolId: string, input: unknown, options?: TestCallOptions): Promise<TestToolResult>;
  setSecrets(values: Record<string, string>): Promise<void>;
  setKnowledgeLevel(level: KnowledgeLevel | null): Promise<void>;
  /** Puts a document into the agent's knowledge base directly (as an operator upload would). */
  seedKnowledge(doc: SeedDocument): Promise<string>;
  /** Audit actions recorded for the agent, newest first. */
  auditActions(): Promise<string[]>;
  /** The agent's audit entries, newest first, as plain data (to assert what was, and was not, logged). */
  auditEntries(): Promise<TestAuditEntry[]>;
  close(): Promise<void>;
}

export interface HostTestHarnessOptions {
  knowledgeLevel: KnowledgeLevel | null;
  agent: string;
  egress?: TestEgressAllow;
}

export interface HostTestHarness {
  install(tarball: Uint8Array, source: string): Promise<LoadedPlugin>;
  call(toolId: string, input: unknown, options: TestCallOptions): Promise<TestToolResult>;
  setSecrets(values: Record<string, string>): Promise<void>;
  setKnowledgeLevel(level: KnowledgeLevel | null): Promise<void>;
  seedKnowledge(doc: SeedDocument): Promise<string>;
  auditActions(): Promise<string[]>;
  auditEntries(): Promise<TestAuditEntry[]>;
  close(): Promise<void>;
}

/** What `@airlock/host/surfaces/testing/index.ts` exports. */
export interface HostTestingModule {
  createHostTestHarness(options: HostTestHarnessOptions): Promise<HostTestHarness>;
}
