// Admin API routes the console needed and the API lacked: tokens (list, issue, revoke), deleting
// an agent (with what it removes shown first), and what a plugin change would change (the diff
// of an uploaded tarball, or of an installed version, against the active one).
// Invariants: operator access only; a token's value is answered once, when issued, and a listing
// never carries a value or a hash; every change is audited (kind admin) — issuing through the
// the host's own audited operations (issueToken, revokeToken, deleteAgent); a preview reads manifests only and writes nothing.
import { hasCode } from "@airlock/sdk";
import { readPluginTarball } from "@airlock/sdk/package";
import { z } from "zod";
import type { AirlockHost } from "../../../contracts/host.ts";
import { apiError } from "../errors.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { namespaceParams, slug, slugParams } from "../schemas.ts";
import { diffManifests, type PluginDiff } from "./plugin-diff.ts";

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

async function activeManifest(host: AirlockHost, ns: string) {
  return (await host.getInstalledVersion(ns))?.manifest ?? null;
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
      return { json: { tokens: await host.listTokens(query.agent) } };
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
      const record = (await host.listTokens()).find((t) => t.id === issued.id);
      if (record === undefined) throw new Error("an issued token is not in the store");
      return { status: 201, json: { token: issued.token, record } };
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
      try {
        await host.revokeToken(params.id);
      } catch (error) {
        if (hasCode(error) && error.code === "AIRLOCK_AUTH_TOKEN_NOT_FOUND")
          throw apiError("AIRLOCK_API_UNKNOWN_TOKEN", `no token has id ${JSON.stringify(params.id)}`);
        throw error;
      }
      return { json: { id: params.id, revoked: true } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/removal",
    operationId: "previewAgentRemoval",
    summary: "What deleting the agent would remove: its tokens, enabled tools, secrets, knowledge documents.",
    tag: "instances",
    access: "operator",
    params: slugParams,
    responses: { 200: { description: "What would be removed.", schema: removalView } },
    async handler({ host, params }) {
      return { json: await host.previewAgentRemoval(params.slug) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/agents/:slug",
    operationId: "deleteAgent",
    summary:
      "Deletes the agent with its tokens, enablement, secrets, conversation state, artifacts and knowledge documents.",
    tag: "instances",
    access: "operator",
    params: slugParams,
    responses: { 200: { description: "What was removed.", schema: removalView } },
    async handler({ host, params }) {
      return { json: await host.deleteAgent(params.slug) };
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
      const target = await host.getInstalledVersion(params.ns, query.to);
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
