// A data dir worth backing up, for the backup/restore suites: the plugin `vault` installed from a
// tarball (as an operator installs one), the agent `keeper` with its tools enabled, a secret, the
// knowledge level `write` and one document the plugin wrote, and an agent token. What must survive
// a restore is checked by using it: `vault:check` compares the stored secret with a guess inside
// the sandbox (the secret is never printed), `vault:recall` reads the document back, and the token
// must authenticate.
import { randomBytes } from "node:crypto";
import { writePluginTarball } from "@airlock/sdk/package";
import type { AirlockHost } from "../../host/src/contracts/host.ts";
import {
  bundleSource,
  type FixturePlugin,
  fixtureManifest,
} from "../../host/src/engine/pipeline/test-fixtures.ts";

export const VAULT: FixturePlugin = {
  namespace: "vault",
  version: "1.0.0",
  tools: [
    {
      name: "check",
      description: "Says whether the guess is the stored API key (never the key itself).",
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: "object",
        properties: { guess: { type: "string" } },
        required: ["guess"],
        additionalProperties: false,
      },
      requiredSecrets: [{ key: "api_key", type: "text", optional: false, sensitive: true }],
      code: 'async (input, ctx) => ((await ctx.secrets.get("api_key")) === input.guess ? "match" : "mismatch")',
    },
    {
      name: "remember",
      description: "Writes a knowledge document.",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string" }, content: { type: "string" } },
        required: ["id", "content"],
        additionalProperties: false,
      },
      code: 'async (input, ctx) => JSON.stringify(await ctx.knowledge.write({ id: input.id, filename: input.id + ".md", content: input.content }))',
    },
    {
      name: "recall",
      description: "Reads a knowledge document back.",
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: "object",
        properties: { id: { type: "string" } },
        required: ["id"],
        additionalProperties: false,
      },
      code: 'async (input, ctx) => { const d = await ctx.knowledge.get(input.id); return d === null ? "none" : d.content; }',
    },
  ],
};

export function vaultTarball(): Uint8Array {
  const code = bundleSource(VAULT);
  const manifest = { ...fixtureManifest(VAULT, code), knowledge: "write" as const };
  return writePluginTarball({
    packageJson: JSON.stringify({ name: "vault", version: "1.0.0", private: true }),
    manifest: JSON.stringify(manifest),
    bundle: code,
  });
}

export interface Populated {
  agent: "keeper";
  agentToken: string;
  apiKey: string;
  documentId: string;
  documentContent: string;
}

/** Fills an open host as the header says; returns what a restored copy must still serve. */
export async function populate(host: AirlockHost): Promise<Populated> {
  const apiKey = `key-${randomBytes(12).toString("hex")}`;
  const documentContent = `remembered ${randomBytes(6).toString("hex")}`;
  await host.plugins.installTarball(vaultTarball(), "/tmp/vault-1.0.0.tgz", { allowUnsigned: true });
  await host.createAgent("keeper");
  await host.setToolsEnabled("keeper", { "vault:check": true, "vault:remember": true, "vault:recall": true });
  await host.setSecrets("keeper", { api_key: apiKey });
  await host.setKnowledgeLevel("keeper", "write");
  const wrote = await host.callTool(
    "keeper",
    "vault:remember",
    { id: "plan", content: documentContent },
    { agent: "keeper", autoApprove: true },
  );
  if (wrote.result.isError === true)
    throw new Error(`vault:remember failed: ${JSON.stringify(wrote.result)}`);
  const issued = await host.issueToken("agent", "keeper", "backup fixture");
  return { agent: "keeper", agentToken: issued.token, apiKey, documentId: "plan", documentContent };
}

/** The text of a call outcome's first content item. */
export function textOf(outcome: { result: { content?: unknown } }): string {
  const content = outcome.result.content as Array<{ type: string; text?: string }> | undefined;
  return content?.[0]?.text ?? JSON.stringify(outcome.result);
}
