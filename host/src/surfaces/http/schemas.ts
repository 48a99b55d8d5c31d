// Zod schemas of the admin API's requests and responses. Requests are parsed with them;
// responses are only documented with them (in the OpenAPI document), the host's own types
// being the source of truth for what handlers return.
// Invariants: request schemas are strict (an unknown field is an error, not ignored), bounded
// (string lengths, record sizes), and accept exactly what docs/api.md describes.
import { z } from "zod";

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const NAMESPACE = /^[a-z][a-z0-9-]{1,31}$/;
const SECRET_KEY = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
/** `<namespace>:<tool>` or the wire form `<namespace>__<tool>`. */
const TOOL_REF = /^[a-z][a-z0-9-]{1,31}(:|__)[a-z][a-zA-Z0-9_]{0,63}$/;

export const slug = z.string().regex(SLUG, "an agent slug: lowercase letters, digits and -, up to 64 chars");
export const namespace = z.string().regex(NAMESPACE, "a plugin namespace");
export const toolRef = z.string().regex(TOOL_REF, "a tool id `<namespace>:<tool>` or `<namespace>__<tool>`");
export const knowledgeLevel = z.enum(["none", "read", "write", "manage"]);
const json = z.record(z.string(), z.unknown());
const queryBool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

export const slugParams = z.strictObject({ slug });
export const secretParams = z.strictObject({ slug, key: z.string().regex(SECRET_KEY, "a secret key") });
export const namespaceParams = z.strictObject({ ns: namespace });
export const trustedKeyParams = z.strictObject({ ns: namespace, keyId: z.string().min(1).max(200) });
export const approvalParams = z.strictObject({ id: z.string().min(1).max(200) });
export const emptyQuery = z.strictObject({});

export const createAgentBody = z.strictObject({
  slug,
  /** Also issue an agent token (returned once). */
  token: z.boolean().optional(),
});
export const setToolsBody = z.strictObject({
  enabled: z
    .record(toolRef, z.boolean())
    .refine((r) => Object.keys(r).length <= 500, "at most 500 tools at once"),
});
export const setSecretsBody = z.strictObject({
  values: z
    .record(z.string().regex(SECRET_KEY, "a secret key"), z.string().max(16_384))
    .refine((r) => Object.keys(r).length <= 100, "at most 100 secrets at once"),
});
export const setKnowledgeBody = z.strictObject({ level: knowledgeLevel });
/** Ed25519 public keys (PEM) the operator trusts for this install (the CLI's --trust-key). */
const trustKeys = z.array(z.string().min(1).max(4096)).max(16).optional();
export const installBody = z.strictObject({
  spec: z.string().min(1).max(2048),
  allowUnsigned: z.boolean().optional(),
  allowDowngrade: z.boolean().optional(),
  allowPrerelease: z.boolean().optional(),
  trustKeys,
});
export const installQuery = z.strictObject({
  allowUnsigned: queryBool.optional(),
  allowDowngrade: queryBool.optional(),
  allowPrerelease: queryBool.optional(),
  source: z.string().min(1).max(256).optional(),
});
export const workerTierBody = z.strictObject({ tier: z.enum(["own", "shared"]) });
const workerTierView = z.object({
  tier: z.enum(["own", "shared"]),
  reason: z.enum(["operator", "quarantine", "cpu_limit"]).nullable(),
  since: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
});
export const workerTierResponse = workerTierView;

export const upgradeBody = z.strictObject({
  range: z.string().min(1).max(256).optional(),
  allowUnsigned: z.boolean().optional(),
  allowDowngrade: z.boolean().optional(),
  allowPrerelease: z.boolean().optional(),
  trustKeys,
});
export const uninstallQuery = z.strictObject({ purge: queryBool.optional() });
export const auditQuery = z.strictObject({
  agent: slug.optional(),
  plugin: namespace.optional(),
  tool: z.string().min(1).max(200).optional(),
  kind: z.enum(["capability", "plugin", "tool", "admin"]).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  before: z.coerce.number().int().min(1).optional(),
});
export const auditExportQuery = z.strictObject({
  format: z.enum(["csv", "json"]),
  agent: slug.optional(),
  plugin: namespace.optional(),
  tool: z.string().min(1).max(200).optional(),
  kind: z.enum(["capability", "plugin", "tool", "admin"]).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
});
const message = z.strictObject({
  role: z.enum(["user", "assistant", "system", "tool"]),
  content: z.string().max(100_000),
  at: z.string().max(64).optional(),
});
const attachment = z.strictObject({
  filename: z.string().min(1).max(255),
  mime: z.string().min(1).max(255),
  size: z.number().int().min(0),
  data: z.string().optional(),
});
export const callBody = z.strictObject({
  tool: toolRef,
  input: json.default({}),
  conversationId: z.string().min(1).max(200).optional(),
  conversation: z.array(message).max(200).optional(),
  attachments: z.array(attachment).max(20).optional(),
  /** Operator tokens only: run a non-read-only tool without waiting for an approval. */
  autoApprove: z.boolean().optional(),
  /** The end user the call is for (docs/oauth.md); the pipeline checks it (AIRLOCK_TOOL_SUBJECT_INVALID). */
  subject: z.string().max(1000).optional(),
});
export const approvalsQuery = z.strictObject({ agent: slug.optional() });
export const decideBody = z.strictObject({ approve: z.boolean(), reason: z.string().max(2000).optional() });

// ---- responses (documentation only) ----
export const errorResponse = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: json.optional() }),
});
const secretSpec = z.object({
  key: z.string(),
  type: z.enum(["text", "select"]),
  label: z.string().optional(),
  description: z.string().optional(),
  choices: z.array(z.string()).optional(),
  optional: z.boolean(),
  sensitive: z.boolean(),
});
const catalogueTool = z.object({
  id: z.string(),
  namespace: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.string(),
  category: z.string(),
  requiredSecrets: z.array(secretSpec),
  annotations: json,
  inputSchema: json,
  grants: json.optional(),
  claimedAnnotations: json.optional(),
});
export const toolsResponse = z.object({ tools: z.array(catalogueTool) });
export const agentToolsResponse = z.object({
  tools: z.array(
    catalogueTool.extend({ enabled: z.boolean(), missingSecrets: z.array(z.string()), served: z.boolean() }),
  ),
});
const agent = z.object({ slug: z.string(), knowledgeLevel, createdAt: z.string() });
export const agentsResponse = z.object({ agents: z.array(agent) });
export const createAgentResponse = z.object({
  agent,
  token: z.object({ id: z.string(), token: z.string() }).optional(),
});
export const secretsResponse = z.object({
  secrets: z.array(
    z.object({
      key: z.string(),
      set: z.boolean(),
      sensitive: z.boolean(),
      value: z.string().nullable(),
      tools: z.array(z.string()),
      spec: z
        .object({
          type: z.enum(["text", "select"]),
          label: z.string().optional(),
          description: z.string().optional(),
          choices: z.array(z.string()).optional(),
          optional: z.boolean(),
        })
        .nullable(),
    }),
  ),
});
export const deleteSecretResponse = z.object({ key: z.string(), deleted: z.boolean() });
export const knowledgeResponse = z.object({ level: knowledgeLevel });
const installReport = z.object({
  namespace: z.string(),
  version: z.string(),
  previous: z.string().nullable(),
  tools: z.array(z.string()),
  signer: z.string().nullable(),
});
export const installResponse = installReport;
export const pluginsResponse = z.object({
  plugins: z.array(
    z.object({
      namespace: z.string(),
      active: z.string(),
      previous: z.string().nullable(),
      versions: z.array(z.string()),
      tools: z.array(z.string()),
      signer: z.string().nullable(),
      source: z.string(),
      worker: workerTierView.optional(),
    }),
  ),
});
const trustedKeyView = z.object({ namespace: z.string(), keyId: z.string(), addedAt: z.string() });
export const trustedKeysResponse = z.object({ keys: z.array(trustedKeyView) });
export const trustedKeyResponse = trustedKeyView;
export const uninstallResponse = z.object({
  namespace: z.string(),
  removedVersions: z.array(z.string()),
  disabledForAgents: z.number(),
  kept: z.object({ knowledgeDocuments: z.number(), secrets: z.array(z.string()) }),
  purged: z.object({ knowledgeDocuments: z.number(), secrets: z.array(z.string()) }).nullable(),
});
export const auditResponse = z.object({
  entries: z.array(json),
  /** Pass as `before` to get the next (older) page; null when this page is the last. */
  nextBefore: z.number().nullable(),
});
export const callResponse = z.object({
  callId: z.string(),
  toolName: z.string(),
  result: z.object({
    content: z.array(json),
    isError: z.boolean().optional(),
    structuredContent: json.optional(),
  }),
  errorCode: z.string().optional(),
  blocked: z.boolean(),
  durationMs: z.number(),
});
export const approvalsResponse = z.object({
  approvals: z.array(
    z.object({
      id: z.string(),
      runId: z.string(),
      agent: z.string(),
      toolName: z.string(),
      input: json,
      requestedAt: z.string(),
    }),
  ),
});
export const decideResponse = z.object({ id: z.string(), approved: z.boolean() });
export const presentationsResponse = z.object({ presentations: z.record(z.string(), json) });
export const healthResponse = z.object({ status: z.literal("ok"), version: z.string() });
