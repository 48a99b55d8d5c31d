// The example agent `airlock start` creates: every regular first-party tool enabled, knowledge
// at `write` (so the notes plugin can write its own notes), and example values for the secrets
// the tools need, so the tools are served at once. Values an operator already set are kept.
import type { AirlockHost } from "../../../contracts/host.ts";

export const EXAMPLE_AGENT = "example";

/** Placeholder values: the hosted services reject them, which the tools report cleanly. */
export const EXAMPLE_SECRETS: Readonly<Record<string, string>> = {
  api_key: "example-jsonhub-key",
  api_token: "example-weatherhub-token",
  units: "metric",
  upload_token: "example-dropzone-token",
};

export interface ExampleAgentReport {
  created: boolean;
  enabled: string[];
  secretsSet: string[];
}

export async function ensureExampleAgent(
  host: AirlockHost,
  slug = EXAMPLE_AGENT,
): Promise<ExampleAgentReport> {
  const created = (await host.getAgent(slug)) === null;
  if (created) {
    await host.createAgent(slug);
    await host.setKnowledgeLevel(slug, "write");
  }
  const tools = await host.listAgentTools(slug);
  const toEnable = created ? tools.map((t) => t.id) : tools.filter((t) => !t.enabled).map((t) => t.id);
  if (toEnable.length > 0)
    await host.setToolsEnabled(slug, Object.fromEntries(toEnable.map((id) => [id, true])));
  const declared = new Set(tools.flatMap((t) => t.requiredSecrets.map((s) => s.key)));
  const alreadySet = new Set((await host.listSecrets(slug)).filter((s) => s.set).map((s) => s.key));
  const values = Object.fromEntries(
    Object.entries(EXAMPLE_SECRETS).filter(([key]) => declared.has(key) && !alreadySet.has(key)),
  );
  if (Object.keys(values).length > 0) await host.setSecrets(slug, values);
  return { created, enabled: toEnable, secretsSet: Object.keys(values) };
}
