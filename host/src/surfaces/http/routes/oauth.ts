// OAuth connections and model access over HTTP: the two public pages of the authorization-code
// flow (a connect link opens /oauth/connect/:ticket, which redirects to the provider; the
// provider redirects back to /oauth/callback), and operator routes for connections, connect
// links, model connections and per-plugin model grants.
// Invariants: the public pages answer HTML with a strict CSP and no framing, say what happened
// with the stable code, and never echo a code, state, token or secret; operator routes return
// views that carry no token, client secret or provider key.
import { hasCode } from "@airlock/sdk/errors";
import { z } from "zod";
import { escapeHtml, layout } from "../people/html.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { namespace, slug } from "../schemas.ts";

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  // the console's stylesheet (people/html.ts's layout), from this origin; no inline style
  "content-security-policy": "default-src 'none'; style-src 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

function page(status: number, title: string, lines: string[]): Response {
  const body = `<h1>${escapeHtml(title)}</h1><div class="card">${lines.map((l) => `<p>${l}</p>`).join("")}</div>`;
  return new Response(layout(title, body), { status, headers: PAGE_HEADERS });
}

function failurePage(error: unknown): Response {
  if (!hasCode(error) || !error.code.startsWith("AIRLOCK_")) throw error;
  const status = (error as { status?: number }).status ?? 400;
  return page(status >= 400 && status < 600 ? status : 400, "Could not connect the account", [
    escapeHtml(error.message),
    `<code>${escapeHtml(error.code)}</code>`,
    "Ask for a new connect link (the tool that needs the account gives one) and try again.",
  ]);
}

const provider = z
  .string()
  .regex(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, "an OAuth provider name")
  .max(32);
const connectionName = z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, "a model connection name");
const subjectQuery = z.strictObject({ subject: z.string().max(200).optional() });
const connectionView = z.object({
  provider: z.string(),
  subject: z.string(),
  plugin: z.string(),
  scopes: z.array(z.string()),
  expiresAt: z.string().nullable(),
  refreshable: z.boolean(),
  updatedAt: z.string(),
});
const modelConnectionView = z.object({
  name: z.string(),
  baseUrl: z.string(),
  model: z.string(),
  keySet: z.literal(true),
  updatedAt: z.string(),
});
const budget = z.number().int().min(0).nullable().optional();
const grantView = z.object({
  plugin: z.string(),
  connection: z.string(),
  maxTokens: z.number().nullable(),
  maxCalls: z.number().nullable(),
  period: z.enum(["day", "month", "total"]),
  used: z.object({ period: z.string(), calls: z.number(), tokens: z.number() }),
});

export const oauthRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/oauth/connect/:ticket",
    operationId: "oauthConnect",
    summary: "Opens a connect link: redirects the browser to the provider's authorization page (PKCE).",
    tag: "oauth",
    access: "public",
    params: z.strictObject({ ticket: z.string().min(1).max(4000) }),
    query: z.record(z.string(), z.string()),
    responses: {
      302: { description: "To the provider's authorization endpoint." },
      400: {
        description: "The link is altered, expired, or names a provider no active plugin declares.",
        mediaType: "text/html",
      },
    },
    async handler({ host, params }) {
      try {
        const location = await host.oauth.begin(params.ticket);
        return new Response(null, { status: 302, headers: { ...PAGE_HEADERS, location } });
      } catch (error) {
        return failurePage(error);
      }
    },
  }),
  defineRoute({
    method: "get",
    path: "/oauth/callback",
    operationId: "oauthCallback",
    summary: "Where the provider sends the browser back: exchanges the code and stores the token.",
    tag: "oauth",
    access: "public",
    query: z.record(z.string(), z.string().max(4000)),
    responses: {
      200: { description: "Connected.", mediaType: "text/html" },
      400: {
        description: "Unknown, replayed or expired state, or the provider refused.",
        mediaType: "text/html",
      },
      502: {
        description: "The token endpoint refused the code or could not be reached.",
        mediaType: "text/html",
      },
    },
    async handler({ host, query }) {
      try {
        const who = await host.oauth.complete(query);
        return page(200, `Connected ${who.provider}`, [
          `Agent <code>${escapeHtml(who.agent)}</code> can now use your ${escapeHtml(who.provider)} account through plugin <code>${escapeHtml(who.plugin)}</code>.`,
          "You can close this window and ask the agent to try again.",
        ]);
      } catch (error) {
        return failurePage(error);
      }
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/oauth",
    operationId: "listOAuthConnections",
    summary: "The agent's OAuth connections: provider, subject, plugin, scopes, expiry (never a token).",
    tag: "oauth",
    access: "operator",
    params: z.strictObject({ slug }),
    responses: {
      200: { description: "The connections.", schema: z.object({ connections: z.array(connectionView) }) },
    },
    async handler({ host, params }) {
      return { json: { connections: await host.oauth.connections(params.slug) } };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/agents/:slug/oauth/:provider/link",
    operationId: "createOAuthConnectLink",
    summary: "A connect link (valid 15 minutes) that starts the provider's sign-in for this agent.",
    tag: "oauth",
    access: "operator",
    params: z.strictObject({ slug, provider }),
    body: z.strictObject({ plugin: namespace, subject: z.string().max(200).optional() }),
    responses: { 200: { description: "The link.", schema: z.object({ url: z.string() }) } },
    async handler({ host, params, body }) {
      return {
        json: { url: await host.oauth.connectLink(params.slug, body.plugin, params.provider, body.subject) },
      };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/agents/:slug/oauth/:provider",
    operationId: "disconnectOAuth",
    summary:
      "Disconnects the provider: revokes the token at the provider (when it has an endpoint) and forgets it.",
    tag: "oauth",
    access: "operator",
    params: z.strictObject({ slug, provider }),
    query: subjectQuery,
    responses: {
      200: {
        description: "Whether a connection was removed.",
        schema: z.object({ disconnected: z.boolean() }),
      },
    },
    async handler({ host, params, query }) {
      return {
        json: { disconnected: await host.oauth.disconnect(params.slug, params.provider, query.subject) },
      };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/models",
    operationId: "listModelConnections",
    summary: "The model connections (provider key never returned).",
    tag: "models",
    access: "operator",
    responses: {
      200: {
        description: "The connections.",
        schema: z.object({ connections: z.array(modelConnectionView) }),
      },
    },
    async handler({ host }) {
      return { json: { connections: await host.models.connections() } };
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/models/:name",
    operationId: "setModelConnection",
    summary: "Creates or replaces a model connection (an OpenAI-compatible API, its model and key).",
    tag: "models",
    access: "operator",
    params: z.strictObject({ name: connectionName }),
    body: z.strictObject({
      baseUrl: z.string().max(2000),
      model: z.string().max(200),
      apiKey: z.string().max(8192),
    }),
    responses: { 200: { description: "The connection.", schema: modelConnectionView } },
    async handler({ host, params, body }) {
      return { json: await host.models.setConnection({ name: params.name, ...body }) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/models/:name",
    operationId: "removeModelConnection",
    summary: "Removes a model connection and every grant of it.",
    tag: "models",
    access: "operator",
    params: z.strictObject({ name: connectionName }),
    responses: { 200: { description: "Whether it existed.", schema: z.object({ removed: z.boolean() }) } },
    async handler({ host, params }) {
      return { json: { removed: await host.models.removeConnection(params.name) } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/agents/:slug/models",
    operationId: "listModelGrants",
    summary: "The model grants of the agent's plugins, with this period's usage.",
    tag: "models",
    access: "operator",
    params: z.strictObject({ slug }),
    responses: { 200: { description: "The grants.", schema: z.object({ grants: z.array(grantView) }) } },
    async handler({ host, params }) {
      return { json: { grants: await host.models.grants(params.slug) } };
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/agents/:slug/models/:ns",
    operationId: "grantModel",
    summary: "Grants the agent's plugin a model connection with a budget (tokens and/or calls per period).",
    tag: "models",
    access: "operator",
    params: z.strictObject({ slug, ns: namespace }),
    body: z.strictObject({
      connection: connectionName,
      maxTokens: budget,
      maxCalls: budget,
      period: z.enum(["day", "month", "total"]).optional(),
    }),
    responses: { 200: { description: "The grant.", schema: grantView } },
    async handler({ host, params, body }) {
      return { json: await host.models.grant(params.slug, params.ns, body) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/agents/:slug/models/:ns",
    operationId: "revokeModel",
    summary: "Revokes the plugin's model grant for this agent.",
    tag: "models",
    access: "operator",
    params: z.strictObject({ slug, ns: namespace }),
    responses: {
      200: { description: "Whether there was a grant.", schema: z.object({ revoked: z.boolean() }) },
    },
    async handler({ host, params }) {
      return { json: { revoked: await host.models.revoke(params.slug, params.ns) } };
    },
  }),
];
