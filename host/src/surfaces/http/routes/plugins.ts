// Plugin lifecycle routes: list, install (a spec, or the tarball itself), upgrade, rollback,
// uninstall, and the publisher keys a namespace trusts (list, forget). Everything goes through
// host.plugins (the installer fails closed on mismatch).
import type { InstallOptions } from "../../../contracts/host.ts";
import { apiError } from "../errors.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import {
  installBody,
  installQuery,
  installResponse,
  namespaceParams,
  pluginsResponse,
  trustedKeyParams,
  trustedKeyResponse,
  trustedKeysResponse,
  uninstallQuery,
  uninstallResponse,
  upgradeBody,
  workerTierBody,
  workerTierResponse,
} from "../schemas.ts";

/** Tarballs may be far bigger than JSON bodies. */
export const MAX_TARBALL_BYTES = 64 * 1024 * 1024;

/** The operator's decisions a request carries (body or query), as InstallOptions. */
function installOptions(given: {
  allowUnsigned?: boolean | undefined;
  allowDowngrade?: boolean | undefined;
  allowPrerelease?: boolean | undefined;
  trustKeys?: string[] | undefined;
}): InstallOptions {
  const options: InstallOptions = {};
  if (given.allowUnsigned !== undefined) options.allowUnsigned = given.allowUnsigned;
  if (given.allowDowngrade !== undefined) options.allowDowngrade = given.allowDowngrade;
  if (given.allowPrerelease !== undefined) options.allowPrerelease = given.allowPrerelease;
  if (given.trustKeys !== undefined) options.trustKeys = given.trustKeys;
  return options;
}

export const pluginRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/plugins",
    operationId: "listPlugins",
    summary: "Installed plugins: active and previous version, tools, signer and source.",
    tag: "plugins",
    access: "operator",
    responses: { 200: { description: "The installed plugins.", schema: pluginsResponse } },
    async handler({ host }) {
      return { json: { plugins: await host.plugins.list() } };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/plugins",
    operationId: "installPlugin",
    summary:
      "Installs a plugin: JSON `{spec}` (`name@range` from the registry, a registry URL or a .tgz path), " +
      "or the tarball itself as `application/octet-stream` (query: allowUnsigned, allowDowngrade, allowPrerelease, source).",
    tag: "plugins",
    access: "operator",
    query: installQuery,
    body: installBody,
    rawBody: { description: "A plugin tarball (.tgz)." },
    maxBodyBytes: MAX_TARBALL_BYTES,
    responses: { 201: { description: "What was installed.", schema: installResponse } },
    async handler({ host, body, query, raw }) {
      if (raw !== null) {
        if (raw.byteLength === 0) throw apiError("AIRLOCK_API_INVALID_REQUEST", "the tarball body is empty");
        const report = await host.plugins.installTarball(
          raw,
          query.source ?? "upload",
          installOptions(query),
        );
        return { status: 201, json: report };
      }
      const report = await host.plugins.install(body.spec, installOptions(body));
      return { status: 201, json: report };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/plugins/:ns/upgrade",
    operationId: "upgradePlugin",
    summary: "Installs the newest version matching `range` (default: any newer) and makes it active.",
    tag: "plugins",
    access: "operator",
    params: namespaceParams,
    body: upgradeBody,
    bodyOptional: true,
    responses: { 200: { description: "What is now active.", schema: installResponse } },
    async handler({ host, params, body }) {
      return { json: await host.plugins.upgrade(params.ns, body.range, installOptions(body)) };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/plugins/:ns/rollback",
    operationId: "rollbackPlugin",
    summary: "Makes the previously active version active again.",
    tag: "plugins",
    access: "operator",
    params: namespaceParams,
    responses: { 200: { description: "What is now active.", schema: installResponse } },
    async handler({ host, params }) {
      return { json: await host.plugins.rollback(params.ns) };
    },
  }),
  defineRoute({
    method: "put",
    path: "/api/plugins/:ns/worker",
    operationId: "setPluginWorker",
    summary:
      "Sets the plugin's sandbox worker tier: `own` (a worker of its own) or `shared` (the pool; ends a quarantine).",
    tag: "plugins",
    access: "operator",
    params: namespaceParams,
    body: workerTierBody,
    responses: { 200: { description: "The plugin's tier now.", schema: workerTierResponse } },
    async handler({ host, params, body }) {
      return { json: await host.setPluginWorker(params.ns, body.tier) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/plugins/:ns/keys",
    operationId: "listTrustedKeys",
    summary: "The publisher keys the namespace trusts (kept in the store for every replica).",
    tag: "plugins",
    access: "operator",
    params: namespaceParams,
    responses: { 200: { description: "The namespace's trusted keys.", schema: trustedKeysResponse } },
    async handler({ host, params }) {
      return { json: { keys: await host.plugins.trustedKeys(params.ns) } };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/plugins/:ns/keys/:keyId",
    operationId: "forgetTrustedKey",
    summary: "Stops trusting a publisher key (its key id, URL-encoded) for the namespace, on every replica.",
    tag: "plugins",
    access: "operator",
    params: trustedKeyParams,
    responses: { 200: { description: "The key no longer trusted.", schema: trustedKeyResponse } },
    async handler({ host, params }) {
      return { json: await host.plugins.forgetTrustedKey(params.ns, params.keyId) };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/api/plugins/:ns",
    operationId: "uninstallPlugin",
    summary: "Uninstalls a plugin; `purge=true` also deletes its knowledge documents and its secrets.",
    tag: "plugins",
    access: "operator",
    params: namespaceParams,
    query: uninstallQuery,
    responses: { 200: { description: "What was removed and what was kept.", schema: uninstallResponse } },
    async handler({ host, params, query }) {
      return { json: await host.plugins.uninstall(params.ns, { purge: query.purge === true }) };
    },
  }),
];
