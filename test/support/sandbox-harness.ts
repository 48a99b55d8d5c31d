// A sandbox under test wired like the host wires it: the real bridge, the real core
// capabilities over a real SQLite store and vault, plus two stand-ins named like the capabilities
// other engineers own (`fetch`, `artifacts`) so the isolate side of those methods can be tested
// here, and a `gate` capability a test uses to hold a call at a known point.
// Everything a plugin could make visible (results, errors, notifications, audit entries, worker
// log lines) is recorded, so hostile tests can assert a canary secret appears nowhere.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Attachment, ConversationMessage, KnowledgeLevel, ToolResult } from "@airlock/sdk";
import { type Bridge, createBridge } from "../../host/src/isolation/bridge/bridge.ts";
import type { CallNotification, Capability } from "../../host/src/isolation/bridge/types.ts";
import { createAuditCapability } from "../../host/src/isolation/capabilities/audit.ts";
import { createNotifyCapabilities } from "../../host/src/isolation/capabilities/notify.ts";
import { createSecretsCapability } from "../../host/src/isolation/capabilities/secrets.ts";
import { createStateCapability } from "../../host/src/isolation/capabilities/state.ts";
import { createSandbox } from "../../host/src/isolation/sandbox/index.ts";
import type { Sandbox, SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { WorkerDeathNotice } from "../../host/src/isolation/sandbox/worker/worker-fleet.ts";
import type {
  CpuMoveNotice,
  CpuShare,
  QuarantineNotice,
} from "../../host/src/isolation/sandbox/worker/worker-tiers.ts";
import { createSecretSource, createSecretWriter, createVault } from "../../host/src/state/secrets/index.ts";
import { openStore } from "../../host/src/state/store/index.ts";
import { testStore } from "../../host/src/state/store/test-store.ts";
import type { AuditInput, Store } from "../../host/src/state/store/types.ts";

export type SandboxMode = "in-process" | "workers";
export const MODES: SandboxMode[] = ["in-process", "workers"];

export interface CallOptions {
  agent?: string;
  conversationId?: string;
  knowledgeLevel?: KnowledgeLevel | null;
  conversation?: ConversationMessage[];
  attachments?: Attachment[];
  signal?: AbortSignal;
}

export interface Harness {
  sandbox: Sandbox;
  store: Store;
  bridge: Bridge;
  setSecret(agent: string, key: string, value: string): Promise<void>;
  notifications: CallNotification[];
  /** Gate hits ("gate") and notifications ("log:<message>") in the order the host saw them. */
  events: string[];
  audits: AuditInput[];
  logs: string[];
  outputs: string[];
  fetchRequests: unknown[];
  /** Calls held in ctx.fetch(GATE_URL); release() lets them all go on; reached(n) waits for n hits. */
  gate: { hits: number; release(): void; reached(n: number): Promise<void> };
  call(plugin: SandboxPlugin, tool: string, input?: unknown, options?: CallOptions): Promise<ToolResult>;
  /** The AirlockError a call rejects with (fails the test when it resolves). */
  callError(
    plugin: SandboxPlugin,
    tool: string,
    input?: unknown,
    options?: CallOptions,
  ): Promise<Error & { code: string; details?: Record<string, unknown> }>;
  /** Everything recorded, as one string, for leak assertions. */
  everything(): string;
  close(): Promise<void>;
}

/** ctx.fetch of this URL holds the call until the test calls gate.release(). */
export const GATE_URL = "https://gate.test/";

function testCapabilities(
  h: { fetchRequests: unknown[]; onGateHit: () => void },
  waiters: Array<() => void>,
) {
  const artifacts = new Map<string, { buffer: Uint8Array; filename: string; mime: string }>();
  const fetch: Capability = {
    name: "fetch",
    methods: {
      async request(_grant, args) {
        h.fetchRequests.push(args);
        if (args[0] === GATE_URL) {
          h.onGateHit();
          await new Promise<void>((resolve) => waiters.push(resolve));
        }
        const body = new TextEncoder().encode(JSON.stringify({ greeting: "héllo ✓ 😀" }));
        return {
          status: 200,
          statusText: "OK",
          headers: { "content-type": "application/json" },
          url: String(args[0]),
          redirected: false,
          body,
        };
      },
    },
  };
  const artifactCap: Capability = {
    name: "artifacts",
    methods: {
      async put(_grant, args) {
        const a = args[0] as { buffer: Uint8Array; filename: string; mime: string };
        const handle = `art_${artifacts.size + 1}`;
        artifacts.set(handle, { buffer: a.buffer, filename: a.filename, mime: a.mime });
        return handle;
      },
      async take(_grant, args) {
        const got = artifacts.get(String(args[0])) ?? null;
        artifacts.delete(String(args[0]));
        return got;
      },
    },
  };
  return [fetch, artifactCap];
}

export async function createHarness(
  mode: SandboxMode,
  options: {
    maxStateBytes?: number;
    workers?: number;
    pingTimeoutMs?: number;
    onQuarantine?: (notice: QuarantineNotice) => void;
    onWorkerDeath?: (notice: WorkerDeathNotice) => void;
    cpuShare?: Partial<CpuShare>;
    onCpuMove?: (notice: CpuMoveNotice) => void;
  } = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "airlock-sandbox-"));
  const store = await openStore(testStore(dir));
  const vault = createVault(randomBytes(32));
  const writer = createSecretWriter({ store, vault });
  const logs: string[] = [];
  const audits: AuditInput[] = [];
  const waiters: Array<() => void> = [];
  const hitWaiters: Array<{ n: number; resolve: () => void }> = [];
  const h = {
    fetchRequests: [] as unknown[],
    gate: {
      hits: 0,
      release() {
        for (const w of waiters.splice(0)) w();
      },
      reached(n: number) {
        return new Promise<void>((resolve) => {
          if (h.gate.hits >= n) resolve();
          else hitWaiters.push({ n, resolve });
        });
      },
    },
    events: [] as string[],
    onGateHit() {
      h.events.push("gate");
      h.gate.hits++;
      for (const w of hitWaiters.filter((x) => h.gate.hits >= x.n)) {
        hitWaiters.splice(hitWaiters.indexOf(w), 1);
        w.resolve();
      }
    },
  };
  const bridge = createBridge({
    audit: async (entry) => {
      audits.push(entry);
      await store.appendAudit(entry);
    },
    capabilities: [
      createSecretsCapability({ source: createSecretSource({ store, vault }) }),
      createStateCapability({
        store,
        ...(options.maxStateBytes ? { maxStateBytes: options.maxStateBytes } : {}),
      }),
      createAuditCapability({ store }),
      ...createNotifyCapabilities(),
      ...testCapabilities(h, waiters),
    ],
  });
  const sandbox =
    mode === "workers"
      ? createSandbox({
          mode,
          workers: options.workers ?? 2,
          pingIntervalMs: 100,
          pingTimeoutMs: options.pingTimeoutMs ?? 5000,
          onLog: (l) => logs.push(l),
          ...(options.onQuarantine === undefined ? {} : { onQuarantine: options.onQuarantine }),
          ...(options.onWorkerDeath === undefined ? {} : { onWorkerDeath: options.onWorkerDeath }),
          ...(options.cpuShare === undefined ? {} : { cpuShare: options.cpuShare }),
          ...(options.onCpuMove === undefined ? {} : { onCpuMove: options.onCpuMove }),
        })
      : createSandbox({ mode, onWarning: (l) => logs.push(l) });
  const notifications: CallNotification[] = [];
  const outputs: string[] = [];

  const call: Harness["call"] = async (plugin, tool, input = {}, o = {}) => {
    const agent = o.agent ?? "agent-a";
    await store.ensureAgent(agent);
    const conversationId = o.conversationId ?? "conv-1";
    const grant = bridge.issueGrant({
      agent,
      conversationId,
      manifest: plugin.manifest,
      tool,
      knowledgeLevel: o.knowledgeLevel ?? null,
      conversation: o.conversation ?? [],
      capabilityCalls: plugin.limits.capabilityCalls,
      notify: (n) => {
        notifications.push(n);
        h.events.push(`${n.type}:${n.message ?? ""}`);
      },
    });
    try {
      const result = await sandbox.call(
        {
          pluginKey: plugin.key,
          tool,
          input,
          token: grant.token,
          context: {
            instanceId: agent,
            conversationId,
            toolId: grant.toolId,
            conversation: o.conversation ?? [],
            attachments: o.attachments ?? [],
            knowledgeLevel: o.knowledgeLevel ?? null,
          },
          signal: o.signal ?? AbortSignal.timeout(60_000),
        },
        bridge.dispatch,
      );
      outputs.push(JSON.stringify(result));
      return result;
    } catch (error) {
      outputs.push(JSON.stringify({ error: String(error), ...(error as object) }));
      throw error;
    } finally {
      bridge.revoke(grant.token);
    }
  };

  return {
    sandbox,
    store,
    bridge,
    setSecret: async (agent, key, value) => {
      await store.ensureAgent(agent);
      await writer.put(agent, key, value);
    },
    notifications,
    audits,
    logs,
    outputs,
    fetchRequests: h.fetchRequests,
    events: h.events,
    gate: h.gate,
    call,
    async callError(plugin, tool, input, o) {
      try {
        const result = await call(plugin, tool, input, o);
        throw new Error(`expected ${tool} to fail, it returned ${JSON.stringify(result)}`);
      } catch (error) {
        if (typeof (error as { code?: unknown }).code !== "string") throw error;
        return error as Error & { code: string; details?: Record<string, unknown> };
      }
    },
    everything() {
      return JSON.stringify({ outputs, notifications, audits, logs, fetch: h.fetchRequests });
    },
    async close() {
      h.gate.release();
      await sandbox.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
