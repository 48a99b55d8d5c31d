// Remote MCP server routes: install a server as a plugin, list them, see what a server lists
// now against its pins, review a change, mark a tool read-only. Everything goes through
// host.remote (host/src/engine/remote/); this is also the console's API for the review screen.
import { z } from "zod";
import type { RemoteInstallOptions } from "../../../contracts/remote.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { namespace, namespaceParams, slug } from "../schemas.ts";

const SECRET_KEY = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const HASH = /^[0-9a-f]{64}$/;

const remoteInstallBody = z.strictObject({
  url: z.string().min(1).max(2048),
  namespace,
  allowPrivate: z.array(z.string().min(1).max(256)).max(32).optional(),
  header: z
    .strictObject({ name: z.string().min(1).max(64), secret: z.string().regex(SECRET_KEY, "a secret key") })
    .optional(),
  asAgent: slug.optional(),
  args: z.array(z.string().max(4096)).max(64).optional(),
  allowCommand: z.string().min(1).max(1000).optional(),
  oauth: z
    .strictObject({
      provider: z.string().min(1).max(64),
      authorizationUrl: z.string().min(1).max(2000),
      tokenUrl: z.string().min(1).max(2000),
      revocationUrl: z.string().min(1).max(2000).optional(),
      scopes: z.array(z.string().min(1).max(200)).max(64).optional(),
    })
    .optional(),
});
const statusQuery = z.strictObject({ asAgent: slug.optional() });
const reviewBody = z.strictObject({
  asAgent: slug.optional(),
  expect: z.record(z.string().max(64), z.string().regex(HASH, "a sha256 hex digest").nullable()).optional(),
});
const toolParams = z.strictObject({ ns: namespace, tool: z.string().min(1).max(64) });
const readOnlyBody = z.strictObject({ readOnly: z.boolean() });

const toolView = z.object({
  id: z.string(),
  tool: z.string(),
  remoteName: z.string(),
  hash: z.string(),
  readOnly: z.boolean(),
  hints: z.record(z.string(), z.unknown()),
  refused: z.boolean(),
});
const serverView = z.object({
  namespace: z.string(),
  url: z.string(),
  version: z.string(),
  revision: z.number(),
  server: z.object({ name: z.string(), version: z.string() }).nullable(),
  header: z.object({ name: z.string(), secret: z.string() }).nullable(),
  stdio: z.object({ command: z.string(), args: z.array(z.string()) }).nullable(),
  oauth: z
    .object({
      provider: z.string(),
      authorizationUrl: z.string(),
      tokenUrl: z.string(),
      scopes: z.array(z.string()),
    })
    .nullable(),
  allowPrivate: z.array(z.string()),
  tools: z.array(toolView),
});
const statusView = serverView.extend({
  changes: z.array(
    z.object({
      tool: z.string(),
      remoteName: z.string(),
      kind: z.enum(["changed", "added", "removed"]),
      pinnedHash: z.string().nullable(),
      listedHash: z.string().nullable(),
      pinnedDescription: z.string().nullable(),
      listedDescription: z.string().nullable(),
    }),
  ),
});

export const remoteRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/remote",
    operationId: "listRemoteServers",
    summary: "Remote MCP servers installed as plugins, with their pinned tools and which are refused.",
    tag: "remote",
    access: "operator",
    responses: {
      200: { description: "The remote servers.", schema: z.object({ servers: z.array(serverView) }) },
    },
    async handler({ host }) {
      return { json: { servers: await host.remote.list() } };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/remote",
    operationId: "installRemoteServer",
    summary:
      "Installs a remote MCP server (`mcp+https://…`, or `mcp+http://` to an allowed private address) under a namespace; its definitions are pinned.",
    tag: "remote",
    access: "operator",
    body: remoteInstallBody,
    responses: {
      201: {
        description: "What was installed.",
        schema: z.object({
          namespace: z.string(),
          version: z.string(),
          previous: z.string().nullable(),
          tools: z.array(z.string()),
          signer: z.null(),
        }),
      },
    },
    async handler({ host, body }) {
      const options: RemoteInstallOptions = { namespace: body.namespace };
      if (body.allowPrivate !== undefined) options.allowPrivate = body.allowPrivate;
      if (body.header !== undefined) options.header = body.header;
      if (body.asAgent !== undefined) options.asAgent = body.asAgent;
      if (body.args !== undefined) options.args = body.args;
      if (body.allowCommand !== undefined) options.allowCommand = body.allowCommand;
      if (body.oauth !== undefined) {
        const { revocationUrl, scopes, ...oauth } = body.oauth;
        options.oauth = {
          ...oauth,
          ...(revocationUrl === undefined ? {} : { revocationUrl }),
          ...(scopes === undefined ? {} : { scopes }),
        };
      }
      return { status: 201, json: await host.remote.install(body.url, options) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/remote/:ns",
    operationId: "remoteServerStatus",
    summary:
      "Lists the server now and compares each definition with its pin (`changes`: changed, added, removed).",
    tag: "remote",
    access: "operator",
    params: namespaceParams,
    query: statusQuery,
    responses: { 200: { description: "Pins and changes.", schema: statusView } },
    async handler({ host, params, query }) {
      return {
        json: await host.remote.status(
          params.ns,
          query.asAgent === undefined ? {} : { asAgent: query.asAgent },
        ),
      };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/remote/:ns/review",
    operationId: "reviewRemoteServer",
    summary:
      "Pins what the server lists now (a new revision). With `expect` (tool → listedHash seen), refused when the server lists something else.",
    tag: "remote",
    access: "operator",
    params: namespaceParams,
    body: reviewBody,
    bodyOptional: true,
    responses: { 200: { description: "The new pins and the changes accepted.", schema: statusView } },
    async handler({ host, params, body }) {
      const options = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
      return { json: await host.remote.review(params.ns, options) };
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/remote/:ns/tools/:tool/read-only",
    operationId: "setRemoteToolReadOnly",
    summary: "The operator's read-only mark on a remote tool (read-only tools need no approval).",
    tag: "remote",
    access: "operator",
    params: toolParams,
    body: readOnlyBody,
    responses: { 200: { description: "The tool's pin.", schema: toolView } },
    async handler({ host, params, body }) {
      return { json: await host.remote.setReadOnly(params.ns, params.tool, body.readOnly) };
    },
  }),
];
