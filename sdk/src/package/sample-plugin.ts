// A minimal, valid plugin package built from plain data, for tests of the registry and the
// installer (and hostile tests that start from a good tarball and break one thing).
// Contract: `samplePluginTarball(options)` returns a tarball `readPluginTarball` accepts, whose
// bundle is a real classic script assigning globalThis.__airlockPlugin with one tool `echo`.
import type { PluginManifest } from "../manifest.ts";
import { MANIFEST_VERSION, PLUGIN_GLOBAL, SDK_VERSION } from "../manifest.ts";
import { writePluginTarball } from "./craft-tar.ts";
import { sha512Integrity } from "./read-plugin-tarball.ts";

export interface SamplePluginOptions {
  namespace: string;
  version: string;
  engine?: string;
  sdk?: string;
  /** Secrets the `echo` tool declares (all text, sensitive). */
  secrets?: string[];
  /** Overrides applied to the manifest after it is built (to break it on purpose). */
  patch?: (manifest: PluginManifest) => void;
}

export interface SamplePluginFiles {
  packageJson: string;
  manifest: string;
  bundle: string;
  parsed: PluginManifest;
}

export function samplePluginFiles(options: SamplePluginOptions): SamplePluginFiles {
  const bundle = `globalThis[${JSON.stringify(PLUGIN_GLOBAL)}] = { namespace: ${JSON.stringify(options.namespace)}, version: ${JSON.stringify(options.version)}, tools: { echo: (input) => ({ content: [{ type: "text", text: JSON.stringify(input) }] }) } };\n`;
  const bundleBytes = new TextEncoder().encode(bundle);
  const manifest: PluginManifest = {
    manifestVersion: MANIFEST_VERSION,
    namespace: options.namespace,
    version: options.version,
    description: `sample plugin ${options.namespace}`,
    engine: options.engine ?? ">=0.1.0",
    sdk: options.sdk ?? SDK_VERSION,
    bundle: { file: "index.js", integrity: sha512Integrity(bundleBytes), size: bundleBytes.length },
    tools: [
      {
        name: "echo",
        description: "Echoes its input back as text.",
        category: "utility",
        inputSchema: {
          type: "object",
          properties: { text: { type: "string", description: "The text to echo." } },
          required: ["text"],
          additionalProperties: false,
        },
        annotations: { readOnlyHint: true },
        requiredSecrets: (options.secrets ?? []).map((key) => ({
          key,
          type: "text",
          optional: false,
          sensitive: true,
        })),
        inputExamples: [],
        harness: null,
      },
    ],
    knowledge: null,
    egress: [],
    limits: {},
  };
  options.patch?.(manifest);
  const packageJson = JSON.stringify(
    { name: options.namespace, version: options.version, private: true },
    null,
    2,
  );
  return { packageJson, manifest: JSON.stringify(manifest, null, 2), bundle, parsed: manifest };
}

export function samplePluginTarball(options: SamplePluginOptions): Uint8Array {
  return writePluginTarball(samplePluginFiles(options));
}
