// Test support (imported by tests only): writes a hand-written plugin — a classic-script bundle
// that assigns globalThis.__airlockPlugin, and its manifest — into a directory and records it
// in the store exactly as the installer does (putInstalledPlugin, then activatePlugin). Tools'
// code is given as JavaScript source of `async (input, ctx) => ...`. The manifest goes through
// parseManifest, so a fixture cannot be something a real build would refuse.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { OAuthProviderSpec } from "@airlock/sdk";
import {
  BUNDLE_FILE,
  type EgressRule,
  MANIFEST_FILE,
  type PluginManifest,
  parseManifest,
  type RequestedLimits,
  type ToolManifest,
} from "@airlock/sdk/manifest";
import { integrityOf } from "@airlock/sdk/signing";
import type { InstalledPluginRecord, Store } from "../../state/store/types.ts";

export interface FixtureTool extends Partial<Omit<ToolManifest, "name">> {
  name: string;
  /** JavaScript source of the tool function, `async (input, ctx) => result`. */
  code: string;
}

export interface FixturePlugin {
  namespace: string;
  version?: string;
  tools: FixtureTool[];
  egress?: EgressRule[];
  limits?: RequestedLimits;
  oauth?: OAuthProviderSpec[];
  models?: { reason: string };
  /** The knowledge level the manifest declares (default null). */
  knowledge?: PluginManifest["knowledge"];
}

export function bundleSource(plugin: FixturePlugin): string {
  const version = plugin.version ?? "1.0.0";
  const tools = plugin.tools.map((t) => `    ${JSON.stringify(t.name)}: ${t.code},`).join("\n");
  return `"use strict";\nglobalThis.__airlockPlugin = {\n  namespace: ${JSON.stringify(plugin.namespace)},\n  version: ${JSON.stringify(version)},\n  tools: {\n${tools}\n  },\n};\n`;
}

export function fixtureManifest(plugin: FixturePlugin, code: string): PluginManifest {
  const bytes = Buffer.from(code, "utf8");
  return parseManifest({
    manifestVersion: 1,
    namespace: plugin.namespace,
    version: plugin.version ?? "1.0.0",
    description: `fixture plugin ${plugin.namespace}`,
    engine: ">=1.0.0",
    sdk: "1.0.0",
    bundle: { file: BUNDLE_FILE, integrity: integrityOf(bytes), size: bytes.length },
    tools: plugin.tools.map((t) => ({
      name: t.name,
      description: t.description ?? `the ${t.name} tool`,
      category: t.category ?? "utilities",
      inputSchema: t.inputSchema ?? { type: "object", properties: {}, additionalProperties: false },
      ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema }),
      annotations: t.annotations ?? {},
      ...(t.presentation === undefined ? {} : { presentation: t.presentation }),
      requiredSecrets: t.requiredSecrets ?? [],
      inputExamples: t.inputExamples ?? [],
      harness: t.harness ?? null,
      ...(t.longRunning === undefined ? {} : { longRunning: t.longRunning }),
      ...(t.uses === undefined ? {} : { uses: t.uses }),
    })),
    knowledge: plugin.knowledge ?? null,
    egress: plugin.egress ?? [],
    limits: plugin.limits ?? {},
    ...(plugin.oauth === undefined ? {} : { oauth: plugin.oauth }),
    ...(plugin.models === undefined ? {} : { models: plugin.models }),
  });
}

/** Writes the plugin under `root/<namespace>/<version>/` and records + activates it. */
export async function installFixture(
  store: Store,
  root: string,
  plugin: FixturePlugin,
): Promise<InstalledPluginRecord> {
  const code = bundleSource(plugin);
  const manifest = fixtureManifest(plugin, code);
  const path = join(root, manifest.namespace, manifest.version);
  await mkdir(path, { recursive: true });
  await writeFile(join(path, BUNDLE_FILE), code);
  await writeFile(join(path, MANIFEST_FILE), JSON.stringify(manifest, null, 2));
  await writeFile(
    join(path, "package.json"),
    JSON.stringify({ name: `@fixtures/${manifest.namespace}`, version: manifest.version }),
  );
  const record: InstalledPluginRecord = {
    namespace: manifest.namespace,
    version: manifest.version,
    manifest,
    integrity: manifest.bundle.integrity,
    signer: null,
    source: `file:${path}`,
    path,
    installedAt: new Date().toISOString(),
  };
  await store.putInstalledPlugin(record);
  await store.activatePlugin(manifest.namespace, manifest.version);
  return record;
}
