// Test support for the surfaces' suites (imported by tests only): a REAL host (SQLite store in a
// temp dir, in-process sandbox) with an operator token, an agent, that agent's token, and the
// "kit" fixture plugin installed from a real tarball through host.plugins.installTarball.
// The kit's tools cover what the surfaces must map: text, image + structuredContent, an error
// result, progress and log notifications, a tool needing approval, a tool needing a secret.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePluginTarball } from "@airlock/sdk/package";
import type { AirlockHost } from "../../contracts/host.ts";
import {
  bundleSource,
  type FixturePlugin,
  fixtureManifest,
  installFixture,
} from "../../engine/pipeline/test-fixtures.ts";
import { createHost } from "../../host.ts";
import { openStore } from "../../state/store/index.ts";
import { testStore } from "../../state/store/test-store.ts";

export const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

export const KIT: FixturePlugin = {
  namespace: "kit",
  version: "1.0.0",
  tools: [
    {
      name: "echo",
      description: "Echoes the text back.",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
        additionalProperties: false,
      },
      annotations: { title: "Echo", readOnlyHint: true },
      presentation: { label: "Echo", icon: "repeat", tone: "info" },
      code: 'async (input) => "echo: " + input.text',
    },
    {
      name: "picture",
      description: "Returns a 1x1 PNG and its size as structured content.",
      annotations: { readOnlyHint: true },
      code: `async () => ({ content: [{ type: "image", data: ${JSON.stringify(PNG_1X1)}, mimeType: "image/png" }], structuredContent: { width: 1, height: 1 } })`,
    },
    {
      name: "fail",
      description: "Always fails with a reason.",
      annotations: { readOnlyHint: true },
      code: 'async () => ({ success: false, error: "the fail tool always fails" })',
    },
    {
      name: "slow",
      description: "Reports progress and a log line, then answers.",
      annotations: { readOnlyHint: true },
      code: 'async (input, ctx) => { await ctx.progress(1, 2, "half"); await ctx.log("info", "halfway there"); await ctx.progress(2, 2, "done"); return "slow done"; }',
    },
    {
      name: "write",
      description: "A mutating tool (needs an approval).",
      annotations: { readOnlyHint: false, destructiveHint: true },
      code: 'async () => "written"',
    },
    {
      name: "keyed",
      description: "Needs an API key; says whether it has one.",
      annotations: { readOnlyHint: true },
      requiredSecrets: [{ key: "api_key", type: "text", optional: false, sensitive: true }],
      code: 'async (input, ctx) => ((await ctx.secrets.get("api_key")) ? "has key" : "no key")',
    },
    {
      name: "roll_dice",
      description: "A harness tool (group dice): never in the catalogue, injected on request.",
      annotations: { readOnlyHint: true },
      harness: "dice",
      code: 'async () => "rolled 4"',
    },
  ],
};

export function kitTarball(plugin: FixturePlugin = KIT): Uint8Array {
  const bundle = bundleSource(plugin);
  const manifest = fixtureManifest(plugin, bundle);
  return writePluginTarball({
    packageJson: JSON.stringify({ name: `@fixtures/${plugin.namespace}`, version: manifest.version }),
    manifest: JSON.stringify(manifest),
    bundle,
  });
}

export interface SurfaceFixture {
  host: AirlockHost;
  dataDir: string;
  operatorToken: string;
  agent: string;
  agentToken: string;
  otherAgent: string;
  otherAgentToken: string;
  /** Closes the host but keeps the data directory (for a child process to open it). */
  closeHost(): Promise<void>;
  close(): Promise<void>;
}

/** A real host with the kit installed; `enable` turns on kit tools for the agent. */
export async function createSurfaceFixture(
  options: { install?: boolean; enable?: string[]; publicUrl?: string } = {},
): Promise<SurfaceFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), "airlock-surfaces-"));
  if (options.install !== false) {
    // Recorded in the store as the installer does, before the host opens and loads its catalogue.
    const store = await openStore(testStore(dataDir));
    try {
      await installFixture(store, join(dataDir, "plugins"), KIT);
    } finally {
      await store.close();
    }
  }
  const host = await createHost({
    dataDir,
    store: testStore(dataDir),
    sandbox: { mode: "in-process" },
    onInternalError: () => undefined,
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
  });
  try {
    const operator = await host.issueToken("operator", undefined, "test");
    await host.createAgent("alpha");
    await host.createAgent("beta");
    const alpha = await host.issueToken("agent", "alpha", "test");
    const beta = await host.issueToken("agent", "beta", "test");
    if (options.install !== false) {
      const enable = options.enable ?? ["echo", "picture", "fail", "slow", "write"];
      if (enable.length > 0) {
        await host.setToolsEnabled("alpha", Object.fromEntries(enable.map((t) => [`kit:${t}`, true])));
      }
    }
    return {
      host,
      dataDir,
      operatorToken: operator.token,
      agent: "alpha",
      agentToken: alpha.token,
      otherAgent: "beta",
      otherAgentToken: beta.token,
      closeHost: () => host.close(),
      async close() {
        try {
          await host.close();
        } finally {
          await rm(dataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
