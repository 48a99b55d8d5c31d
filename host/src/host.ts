// createHost(options): opens the store, the vault and the sandbox, builds the capabilities and
// the bridge, the plugin lifecycle, then assembles the AirlockHost (host-api.ts) and loads the
// active plugins' catalogue. Plugins are loaded into the sandbox lazily, on their first call.
// Invariants: a failure while starting closes whatever was already opened and rethrows; the
// sandbox never receives the store, the vault or a secret; the host owns (and closes) every
// part it opened, never one the embedder handed in (`{kind: "instance"}` store); every part
// writes audit entries through one group-commit writer (pipeline/audit-writer.ts), flushed
// before any audit query and on close.

import { join } from "node:path";
import { type HostOptions, type ResolvedHostOptions, resolveHostOptions } from "./config.ts";
import type { AirlockHost } from "./contracts/host.ts";
import { localPluginDir } from "./engine/install/packages.ts";
import { createBrokered } from "./engine/oauth/wiring.ts";
import { inChildSpan } from "./engine/observability/spans.ts";
import * as elicitForms from "./engine/people/form-schema.ts";
import { createAuditWriter, withAuditWriter } from "./engine/pipeline/audit-writer.ts";
import { bridgeGrantIssuer } from "./engine/pipeline/grants.ts";
import { assembleHost } from "./host-api.ts";
import { createBridge } from "./isolation/bridge/bridge.ts";
import { createArtifactsCapability, startArtifactSweeper } from "./isolation/capabilities/artifacts.ts";
import { createAuditCapability } from "./isolation/capabilities/audit.ts";
import { createElicitCapability } from "./isolation/capabilities/elicit.ts";
import { createFetchCapability } from "./isolation/capabilities/fetch.ts";
import { createKnowledgeCapability } from "./isolation/capabilities/knowledge.ts";
import { createNotifyCapabilities } from "./isolation/capabilities/notify.ts";
import { createSecretsCapability } from "./isolation/capabilities/secrets.ts";
import { createStateCapability } from "./isolation/capabilities/state.ts";
import type { QuarantineNotice } from "./isolation/sandbox/index.ts";
import { createSandbox, type Sandbox } from "./isolation/sandbox/index.ts";
import { createPluginLifecycleFor } from "./lifecycle-wiring.ts";
import { createSecretSource, createVault, openVault, type Vault } from "./state/secrets/index.ts";
import { openStore } from "./state/store/index.ts";
import type { AuditInput, Store } from "./state/store/types.ts";

async function openHostStore(options: ResolvedHostOptions): Promise<{ store: Store; owned: boolean }> {
  const s = options.store;
  if (s.kind === "instance") return { store: s.store, owned: false };
  if (s.kind === "sqlite")
    return {
      store: await openStore({
        kind: "sqlite",
        dataDir: s.dataDir ?? options.dataDir,
        ...(s.durability === undefined ? {} : { durability: s.durability }),
      }),
      owned: true,
    };
  return {
    store: await openStore({
      kind: "postgres",
      url: s.url,
      ...(s.schema === undefined ? {} : { schema: s.schema }),
      ...(s.maxConnections === undefined ? {} : { maxConnections: s.maxConnections }),
    }),
    owned: true,
  };
}

function openHostVault(options: ResolvedHostOptions): Vault {
  if (options.masterKey !== undefined) return createVault(Buffer.from(options.masterKey, "base64"));
  return openVault({ dataDir: options.dataDir, env: process.env });
}

/** Relays the workers sandbox's quarantines to the host assembled after it. */
type QuarantineRelay = { listener: ((notice: QuarantineNotice) => void) | null };

function openSandbox(options: ResolvedHostOptions, relay: QuarantineRelay): Sandbox {
  const s = options.sandbox;
  if (s.instance !== undefined) return s.instance;
  const report = (line: string) => options.onInternalError("sandbox", line);
  if (s.mode === "in-process") return createSandbox({ mode: "in-process", onWarning: report });
  return createSandbox({
    mode: "workers",
    onLog: report,
    onQuarantine: (notice) => relay.listener?.(notice),
    ...(s.workers === undefined ? {} : { workers: s.workers }),
  });
}

export async function createHost(options: HostOptions = {}): Promise<AirlockHost> {
  const resolved = resolveHostOptions(options);
  const opened = await openHostStore(resolved);
  const { owned } = opened;
  // Audit entries (one per tool call and per capability call) share commits: group commit.
  // SQLite: journaled first (durable at once; committed in batches off the call's path).
  // PostgreSQL (replicas): committed before the append resolves, so every replica's queryAudit
  // sees a finished call.
  const journal = opened.store.openAuditJournal?.();
  const auditWriter = createAuditWriter(opened.store, {
    onCommitError: (error) => resolved.onInternalError("audit write", error),
    ...(journal === undefined ? {} : { journal }),
  });
  const store = withAuditWriter(opened.store, auditWriter);
  let sandbox: Sandbox | undefined;
  let stopSweeper: (() => void) | undefined;
  try {
    const vault = openHostVault(resolved);
    const secrets = createSecretSource({ store, vault });
    const audit = (entry: AuditInput) => store.appendAudit(entry);
    const brokered = createBrokered({ store, vault, secrets, audit, options: resolved });
    let onRefusal: ((refusal: { capability: string; code: string }) => void) | undefined;
    const bridge = createBridge({
      audit,
      onRefusal: (refusal) => onRefusal?.(refusal),
      childSpan: inChildSpan,
      capabilities: [
        createSecretsCapability({ source: secrets }),
        createStateCapability({ store }),
        createAuditCapability({ store }),
        createArtifactsCapability({ store, now: resolved.clock }),
        createKnowledgeCapability({ store, audit }),
        ...createNotifyCapabilities(),
        createElicitCapability({ audit, forms: elicitForms }),
        createFetchCapability({
          secrets,
          policy: resolved.egress,
          audit,
          ...(resolved.resolver === undefined ? {} : { resolver: resolved.resolver }),
          bearer: brokered.bearer,
        }),
        ...brokered.capabilities,
      ],
    });
    const relay: QuarantineRelay = { listener: null };
    sandbox = openSandbox(resolved, relay);
    stopSweeper = startArtifactSweeper({
      store,
      now: resolved.clock,
      onError: (error) => resolved.onInternalError("artifact sweep", error),
    });
    const sweeper = stopSweeper;
    return await assembleHost({
      options: resolved,
      store,
      ownsStore: owned,
      sandbox,
      grants: bridgeGrantIssuer(bridge, resolved.egress),
      codec: vault,
      brokered: brokered.admin,
      // V8 code caches on disk, authenticated under a key derived from the master key (never a
      // value plugin code can reach); a file that does not verify is discarded, never loaded
      codeCache: {
        dir: join(resolved.dataDir, "code-cache"),
        key: vault.deriveKey("code-cache").toString("base64"),
      },
      onQuarantine: (listener) => {
        relay.listener = listener;
      },
      lifecycle: createPluginLifecycleFor({ store, options: resolved }),
      locatePlugin: (plugin) =>
        localPluginDir({ store, dataDir: resolved.dataDir, trust: resolved.trust }, plugin),
      refusals: (listener) => {
        onRefusal = listener;
      },
      closeExtras: async () => {
        sweeper();
        await auditWriter.flush();
        auditWriter.close();
      },
    });
  } catch (error) {
    stopSweeper?.();
    journal?.close(auditWriter.pending === 0);
    await sandbox
      ?.close()
      .catch((e: unknown) => resolved.onInternalError("closing the sandbox after a failed start", e));
    if (owned)
      await store
        .close()
        .catch((e: unknown) => resolved.onInternalError("closing the store after a failed start", e));
    throw error;
  }
}
