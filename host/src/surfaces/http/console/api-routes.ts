// Admin API routes the console needed and the API lacked: tokens (list, issue, revoke), deleting
// an agent (with what it removes shown first), and what a plugin change would change (the diff
// of an uploaded tarball, or of an installed version, against the active one).
// Invariants: operator access only; a token's value is answered once, when issued, and a listing
// never carries a value or a hash; every change is audited (kind admin) — issuing through the
// host's own audited issueToken; a preview reads manifests only and writes nothing.
import { readPluginTarball } from "@airlock/sdk/package";
import { z } from "zod";
import type { AirlockHost } from "../../../contracts/host.ts";
import type { TokenRecord } from "../../../contracts/records.ts";
import { TOKEN_PREFIXES } from "../../../state/auth/tokens.ts";
import { apiError } from "../errors.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { namespaceParams, slug, slugParams } from "../schemas.ts";
import { diffManifests, type PluginDiff } from "./plugin-diff.ts";
import { consoleAudit } from "./session.ts";

const MAX_PREVIEW_BYTES = 64 * 1024 * 1024;

const tokenView = z.object({
  id: z.string(),
  role: z.enum(["operator", "agent"]),
  agent: z.string().nullable(),
  label: z.string(),
  createdAt: z.string(),
  prefix: z.string().describe("The token's first characters (e.g. alk_ag_Xy3q), never its value."),
});
const removalView = z.object({
  agent: z.string(),
  tokens: z.array(tokenView),
  enabledTools: z.array(z.string()),
  secrets: z.array(z.string()),
  knowledgeDocuments: z.number(),
  pendingApprovals: z.number(),
});
const diffView = z.object({
  namespace: z.string(),
  from: z.string().nullable(),
  to: z.string(),
  toolsAdded: z.array(z.string()),
  toolsRemoved: z.array(z.string()),
  toolsChanged: z.array(z.record(z.string(), z.unknown())),
  secretsAdded: z.array(z.string()),
  secretsRemoved: z.array(z.string()),
  egressAdded: z.array(z.string()),
  egressRemoved: z.array(z.string()),
  knowledge: z.object({ from: z.string().nullable(), to: z.string().nullable() }).nullable(),
});

function viewOf(t: TokenRecord) {
  return {
    id: t.id,
    role: t.role,
    agent: t.agent,
    label: t.label,
    createdAt: t.createdAt,
    // The token's own first characters (role prefix + 4); a token issued before they were kept
    // shows its role prefix only.
    prefix: t.prefix ?? TOKEN_PREFIXES[t.role],
  };
}

async function removalOf(host: AirlockHost, agent: string) {
  const tokens = (await host.store.listTokens()).filter((t) => t.agent === agent).map(viewOf);
  const secrets = (await host.store.listSecrets(agent)).map((s) => s.key).sort();
  return {
    agent,
    tokens,
    enabledTools: (await host.store.listEnabledTools(agent)).sort(),
    secrets,
    knowledgeDocuments: await host.store.countKnowledgeDocs(agent),
    pendingApprovals: (await host.listApprovals(agent)).length,
  };
}

async function activeManifest(host: AirlockHost, ns: string) {
  const activation = await host.store.getActivation(ns);
  if (activation === null) return null;
  return (await host.store.getInstalledPlugin(ns, activation.active))?.manifest ?? null;
}

export const consoleApiRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/tokens",
    operationId: "listTokens",
    summary: "Every token by id, role, agent, label, prefix and creation time (never its value).",
    tag: "tokens",
    access: "operator",
    query: z.strictObject({ agent: slug.optional() }),
    responses: { 200: { description: "The tokens.", schema: z.object({ tokens: z.array(tokenView) }) } },
    async handler({ host, query }) {
      const all = await host.store.listTokens();
      const tokens = query.agent === undefined ? all : all.filter((t) => t.agent === query.agent);
      return { json: { tokens: tokens.map(viewOf) } };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/tokens",
    operationId: "issueToken",
    summary: "Issues an operator token, or an agent token for an existing agent; the value is answered once.",
    tag: "tokens",
    access: "operator",
    body: z.strictObject({
      role: z.enum(["operator", "agent"]),
      agent: slug.optional(),
      label: z.string().max(200).optional(),
    }),
    responses: {
      201: {
        description: "The token (shown once) and its record.",
        schema: z.object({ token: z.string(), record: tokenView }),
      },
    },
    async handler({ host, body }) {
      if (body.role === "agent" && body.agent !== undefined && (await host.getAgent(body.agent)) === null) {
        throw apiError("AIRLOCK_API_UNKNOWN_AGENT", `no agent has slug ${JSON.stringify(body.agent)}`);
      }
      const issued = await host.issueToken(body.role, body.agent, body.label ?? "issued in the console");
      const record = (await host.store.listTokens()).find((t) => t.id === issued.id);
      if (record === undefined) throw new Error("an issued token is not in the store");
      return { status: 201, json: { token: issued.token, record: viewOf(record) } };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/tokens/:id",
    operationId: "revokeToken",
    summary: "Revokes a token: requests presenting it are refused from then on.",
    tag: "tokens",
    access: "operator",
    params: z.strictObject({ id: z.string().regex(/^tok_[A-Za-z0-9_-]{1,64}$/, "a token id tok_…") }),
    responses: {
      200: { description: "Revoked.", schema: z.object({ id: z.string(), revoked: z.literal(true) }) },
    },
    async handler({ host, params }) {
      const found = (await host.store.listTokens()).find((t) => t.id === params.id);
      if (found === undefined) {
        await consoleAudit(host, "token.revoke", "AIRLOCK_API_UNKNOWN_TOKEN", { tokenId: params.id });
        throw apiError("AIRLOCK_API_UNKNOWN_TOKEN", `no token has id ${JSON.stringify(params.id)}`);
      }
      await host.store.deleteToken(params.id);
      await consoleAudit(host, "token.revoke", null, {
        tokenId: params.id,
        role: found.role,
        agent: found.agent,
      });
      return { json: { id: params.id, revoked: true } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/instances/:slug/removal",
    operationId: "previewAgentRemoval",
    summary: "What deleting the agent would remove: its tokens, enabled tools, secrets, knowledge documents.",
    tag: "instances",
    access: "operator",
    params: slugParams,
    responses: { 200: { description: "What would be removed.", schema: removalView } },
    async handler({ host, params }) {
      return { json: await removalOf(host, params.slug) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/instances/:slug",
    operationId: "deleteAgent",
    summary:
      "Deletes the agent with its tokens, enablement, secrets, conversation state, artifacts and knowledge documents.",
    tag: "instances",
    access: "operator",
    params: slugParams,
    responses: { 200: { description: "What was removed.", schema: removalView } },
    async handler({ host, params }) {
      const removed = await removalOf(host, params.slug);
      await host.store.deleteAgent(params.slug);
      await consoleAudit(host, "agent.delete", null, {
        agent: params.slug,
        tokens: removed.tokens.length,
        enabledTools: removed.enabledTools.length,
        secrets: removed.secrets,
        knowledgeDocuments: removed.knowledgeDocuments,
      });
      return { json: removed };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/plugins/:ns/diff",
    operationId: "diffPluginVersion",
    summary:
      "What making the installed version `to` active would change against the active one (e.g. a rollback).",
    tag: "plugins",
    access: "operator",
    params: namespaceParams,
    query: z.strictObject({ to: z.string().min(1).max(256) }),
    responses: { 200: { description: "The changes.", schema: diffView } },
    async handler({ host, params, query }) {
      const target = await host.store.getInstalledPlugin(params.ns, query.to);
      if (target === null) {
        throw apiError(
          "AIRLOCK_API_UNKNOWN_PLUGIN",
          `${params.ns}@${query.to} is not installed on this host`,
        );
      }
      const diff: PluginDiff = diffManifests(await activeManifest(host, params.ns), target.manifest);
      return { json: diff };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/plugins/preview",
    operationId: "previewPluginTarball",
    summary:
      "Reads a plugin tarball (application/octet-stream) without installing it and answers what installing it would change.",
    tag: "plugins",
    access: "operator",
    body: z.strictObject({}),
    rawBody: { description: "A plugin tarball (.tgz)." },
    maxBodyBytes: MAX_PREVIEW_BYTES,
    responses: {
      200: {
        description: "The changes, and the tarball's description.",
        schema: diffView.extend({ description: z.string(), installed: z.boolean() }),
      },
    },
    async handler({ host, raw }) {
      if (raw === null || raw.byteLength === 0) {
        throw apiError("AIRLOCK_API_INVALID_REQUEST", "send the tarball as application/octet-stream");
      }
      const { manifest } = await readPluginTarball(raw);
      const active = await activeManifest(host, manifest.namespace);
      return {
        json: {
          ...diffManifests(active, manifest),
          description: manifest.description,
          installed: active !== null,
        },
      };
    },
  }),
];
