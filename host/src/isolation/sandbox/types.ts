// Contracts of the sandbox runtime: loads built plugins into isolated-vm and runs tool calls.
// Two implementations pass one suite: in-process (embedding, tests) and worker processes
// (default; isolates live in child processes holding no secrets and no store handles).
// Invariants: the sandbox never sees a secret at rest or a store; plugin code reaches the host
// only through the BridgeDispatch handed to `call`; every failure is an AirlockError with a
// stable AIRLOCK_SANDBOX_* / AIRLOCK_TOOL_* code, never a crash of the host.
import type { Attachment, ConversationMessage, KnowledgeLevel, ToolResult } from "@airlock/sdk";
import type { PluginManifest } from "@airlock/sdk/manifest";
import type { EffectiveLimits } from "../../contracts/config.ts";
import type { SandboxStats } from "../../contracts/plugins.ts";
import type { BridgeDispatch, CallNotification } from "../bridge/types.ts";

/** A plugin version ready to load: its verified bundle source and manifest. */
export interface SandboxPlugin {
  /** `<namespace>@<version>` */
  readonly key: string;
  readonly manifest: PluginManifest;
  /** The bundle's source text (index.js), integrity already verified by the installer. */
  readonly code: string;
  readonly limits: EffectiveLimits;
  /** Where the sandbox may keep a V8 code cache for this bundle; none when absent. */
  readonly codeCachePath?: string;
  /**
   * The host key (base64, ≥ 32 bytes) code cache files are authenticated with (a GMAC under an
   * HKDF-SHA256 subkey of it); without it no cache file is read or written. Not a secret of any
   * agent or plugin: it only proves a cache file was written by this host's sandbox.
   */
  readonly codeCacheKey?: string;
  /**
   * Workers mode: run this version in a worker process of its own (one per namespace; no other
   * plugin's calls share it), the operator's trust tier; false puts it (back) in the shared
   * workers, ending a quarantine; absent keeps the sandbox's own quarantine. Ignored in-process.
   */
  readonly ownWorker?: boolean;
  /** Every call gets a context of its own, released when it ends (code mode); default: one per agent. */
  readonly contextPerCall?: boolean;
}

/** Plain data the sandbox uses to build ctx inside the isolate. */
export interface CallContextData {
  instanceId: string;
  conversationId: string;
  toolId: string;
  conversation: ConversationMessage[];
  attachments: Attachment[];
  /** null: ctx.knowledge is absent. */
  knowledgeLevel: KnowledgeLevel | null;
  /** Code mode's runtime only: ctx.tools.call exists (host/src/engine/code-mode/). */
  codeMode?: boolean;
}

export interface SandboxCall {
  /** `<namespace>@<version>` of a loaded plugin. */
  pluginKey: string;
  tool: string;
  input: unknown;
  /** The call's bridge token; plugin code never sees it directly. */
  token: string;
  context: CallContextData;
  /** The host's deadline for this call, already started. */
  signal: AbortSignal;
  /** This call's wall limit in place of the plugin's wallMs (a task call's ceiling). */
  wallMs?: number;
}

export interface Sandbox {
  readonly mode: "in-process" | "workers";
  /** Loads (or reloads) a plugin version. Idempotent per key. */
  load(plugin: SandboxPlugin): Promise<void>;
  unload(pluginKey: string): Promise<void>;
  /** Runs one tool call; resolves to a normalised ToolResult or rejects with an AirlockError. */
  call(call: SandboxCall, bridge: BridgeDispatch): Promise<ToolResult>;
  /**
   * A hint: a call of this plugin version for this (agent, conversation) is about to come. The
   * workers sandbox wakes the idle worker that would serve it; nothing else changes.
   */
  expect?(pluginKey: string, agent: string, conversationId: string): void;
  stats(): SandboxStats;
  close(): Promise<void>;
}

export type { CallNotification, EffectiveLimits, SandboxStats };
