// The host half of `@airlock/sdk/testing` (loaded by the SDK with a dynamic import, so the SDK
// never imports host/ statically). It runs a REAL host: SQLite store in a temp dir, the
// sandbox in in-process mode, the real bridge, capabilities and invocation pipeline; only the
// grants are the test's choice (knowledge level, secrets, the operator's egress policy).
// Invariants: tarballs are installed unsigned with the explicit per-install allowUnsigned flag
// (a test build has no signer); every regular tool of a loaded plugin is enabled for the test
// agent; harness tools are called with their harness group injected; close() removes the dir.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KnowledgeLevel } from "@airlock/sdk";
import type { EgressPolicy } from "../../contracts/config.ts";
import type { AirlockHost } from "../../contracts/host.ts";
import { createHost } from "../../host.ts";
import { egressPolicyFor } from "./egress-policy.ts";
import type {
  HostTestHarness,
  HostTestHarnessOptions,
  LoadedPlugin,
  SeedDocument,
  TestAuditEntry,
  TestCallOptions,
  TestToolResult,
} from "./types.ts";

export type * from "./types.ts";

/** Calls without a conversationId share this one, so artifacts and state cross between them. */
export const DEFAULT_CONVERSATION = "test-conversation";

async function harnessGroups(host: AirlockHost): Promise<Map<string, string>> {
  const groups = new Map<string, string>();
  for (const view of await host.plugins.list()) {
    const record = await host.store.getInstalledPlugin(view.namespace, view.active);
    for (const tool of record?.manifest.tools ?? []) {
      if (tool.harness !== null) groups.set(`${view.namespace}:${tool.name}`, tool.harness);
    }
  }
  return groups;
}

export async function createHostTestHarness(options: HostTestHarnessOptions): Promise<HostTestHarness> {
  const dataDir = await mkdtemp(join(tmpdir(), "airlock-testing-"));
  const egress: EgressPolicy = egressPolicyFor(options.egress);
  let host: AirlockHost;
  try {
    host = await createHost({
      dataDir,
      store: { kind: "sqlite", dataDir },
      sandbox: { mode: "in-process" },
      egress,
      autoApprove: true,
      masterKey: randomBytes(32).toString("base64"),
    });
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const agent = options.agent;
  await host.createAgent(agent);
  const setLevel = (level: KnowledgeLevel | null) => host.setKnowledgeLevel(agent, level ?? "none");
  await setLevel(options.knowledgeLevel);
  let harness = new Map<string, string>();

  return {
    async install(tarball: Uint8Array, source: string): Promise<LoadedPlugin> {
      const report = await host.plugins.installTarball(tarball, source, { allowUnsigned: true });
      harness = await harnessGroups(host);
      const ids = report.tools.map((t) => (t.includes(":") ? t : `${report.namespace}:${t}`));
      const regular = ids.filter((id) => !harness.has(id));
      if (regular.length > 0)
        await host.setToolsEnabled(agent, Object.fromEntries(regular.map((id) => [id, true])));
      return { namespace: report.namespace, version: report.version, tools: ids };
    },
    async call(toolId: string, input: unknown, call: TestCallOptions): Promise<TestToolResult> {
      const group = harness.get(toolId);
      const outcome = await host.callTool(agent, toolId, input, {
        agent,
        autoApprove: true,
        conversationId: call.conversationId ?? DEFAULT_CONVERSATION,
        ...(call.conversation !== undefined ? { conversation: call.conversation } : {}),
        ...(call.attachments !== undefined ? { attachments: call.attachments } : {}),
        ...(group !== undefined ? { harness: [group] } : {}),
      });
      return outcome.errorCode === undefined
        ? outcome.result
        : { ...outcome.result, errorCode: outcome.errorCode };
    },
    async setSecrets(values: Record<string, string>): Promise<void> {
      await host.setSecrets(agent, values);
    },
    setKnowledgeLevel: setLevel,
    async seedKnowledge(doc: SeedDocument): Promise<string> {
      const now = new Date().toISOString();
      const id = `doc-${randomBytes(8).toString("hex")}`;
      await host.store.putKnowledgeDoc({
        id,
        agent,
        filename: doc.filename,
        content: doc.content,
        mime: doc.mime ?? "text/markdown",
        writer: doc.writer ?? "operator",
        createdAt: now,
        updatedAt: now,
      });
      return id;
    },
    async auditActions(): Promise<string[]> {
      return (await host.queryAudit({ agent, limit: 500 })).map((r) => r.action);
    },
    async auditEntries(): Promise<TestAuditEntry[]> {
      return (await host.queryAudit({ agent, limit: 500 })).map((r) => ({
        kind: r.kind,
        action: r.action,
        tool: r.tool,
        allowed: r.allowed,
        success: r.success,
        error: r.error,
        details: r.details,
      }));
    },
    async close(): Promise<void> {
      try {
        await host.close();
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
