// Builds a SandboxPlugin straight from bundle source: a minimal valid manifest (checked by
// parseManifest, integrity computed with node:crypto) around hand-written code. For tests and
// embedders who run code they wrote themselves; installed plugins come from the installer.
import { createHash } from "node:crypto";
import { type PluginManifest, parseManifest, type SecretSpec } from "@airlock/sdk/manifest";
import { resolveLimits } from "./limits.ts";
import type { EffectiveLimits, SandboxPlugin } from "./types.ts";

export interface FixtureTool {
  name: string;
  secrets?: string[];
}

export function integrityOf(code: string): string {
  return `sha512-${createHash("sha512").update(code, "utf8").digest("base64")}`;
}

export function fixtureManifest(
  namespace: string,
  version: string,
  code: string,
  tools: Array<string | FixtureTool>,
): PluginManifest {
  const secret = (key: string): SecretSpec => ({ key, type: "text", optional: false, sensitive: true });
  return parseManifest({
    manifestVersion: 1,
    namespace,
    version,
    description: `fixture ${namespace}`,
    engine: ">=0.1.0",
    sdk: "1.0.0",
    bundle: { file: "index.js", integrity: integrityOf(code), size: Buffer.byteLength(code) },
    tools: tools.map((t) => {
      const tool = typeof t === "string" ? { name: t } : t;
      return {
        name: tool.name,
        description: `fixture tool ${tool.name}`,
        category: "test",
        inputSchema: { type: "object" },
        annotations: {},
        requiredSecrets: (tool.secrets ?? []).map(secret),
        inputExamples: [],
        harness: null,
      };
    }),
    knowledge: null,
    egress: [],
    limits: {},
  });
}

export function makePlugin(options: {
  namespace: string;
  version?: string;
  code: string;
  tools: Array<string | FixtureTool>;
  limits?: Partial<EffectiveLimits>;
  codeCachePath?: string;
  codeCacheKey?: string;
  ownWorker?: boolean;
}): SandboxPlugin {
  const version = options.version ?? "1.0.0";
  const manifest = fixtureManifest(options.namespace, version, options.code, options.tools);
  const plugin: SandboxPlugin = {
    key: `${options.namespace}@${version}`,
    manifest,
    code: options.code,
    limits: resolveLimits(options.limits ?? {}, {}),
    ...(options.codeCachePath === undefined ? {} : { codeCachePath: options.codeCachePath }),
    ...(options.codeCacheKey === undefined ? {} : { codeCacheKey: options.codeCacheKey }),
    ...(options.ownWorker === undefined ? {} : { ownWorker: options.ownWorker }),
  };
  return plugin;
}
