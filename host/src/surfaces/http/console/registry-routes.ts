// The console's view of the plugin registry: search it by name, list a package's versions, and
// see what installing or upgrading to one version would change before confirming (the same diff
// an uploaded .tgz gets, plugin-diff.ts). The registry is the one `airlock install name@range`
// resolves against (host.plugins.registryUrl: --registry / AIRLOCK_REGISTRY_URL); an upgrade
// preview reads the registry the active version came from, as `upgrade` itself does.
// Invariants: operator access only; nothing is installed or written but the audit entry of a
// refusal; the preview reads the tarball the installer would fetch, checked against the
// packument's integrity, never the packument's word for its manifest.
import { readPluginTarball, sha512Integrity } from "@airlock/sdk/package";
import semver from "semver";
import { z } from "zod";
import type { AirlockHost } from "../../../contracts/host.ts";
import { pickVersion } from "../../../engine/install/compat.ts";
import { installError } from "../../../engine/install/errors.ts";
import { originOfSource } from "../../../engine/install/install-verified.ts";
import { fetchPackument, fetchTarball, searchRegistry } from "../../../engine/install/registry-client.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { namespace } from "../schemas.ts";
import { diffManifests } from "./plugin-diff.ts";
import { consoleAudit } from "./session.ts";

const MAX_PREVIEW_TARBALL = 8 * 1024 * 1024;

function configuredRegistry(host: AirlockHost): string {
  const url = host.plugins.registryUrl;
  if (url === null) {
    throw installError(
      "AIRLOCK_INSTALL_NO_REGISTRY",
      "this host has no registry: start it with --registry URL or AIRLOCK_REGISTRY_URL",
    );
  }
  return url;
}

function activeRecord(host: AirlockHost, ns: string) {
  return host.getInstalledVersion(ns);
}

/** The registry an upgrade of `ns` reads (where its active version came from), as `upgrade` does. */
async function upgradeRegistry(host: AirlockHost, ns: string): Promise<string> {
  const active = await activeRecord(host, ns);
  if (active === null)
    throw installError("AIRLOCK_INSTALL_NOT_INSTALLED", `no plugin is installed under "${ns}"`);
  if (active.source.startsWith("file:")) {
    throw installError(
      "AIRLOCK_INSTALL_UPGRADE_NEEDS_REGISTRY",
      `${ns} was installed from ${active.source}; upload the new .tgz instead`,
    );
  }
  return originOfSource(active.source);
}

/** Runs a read for the console; a refusal is audited (kind admin) before it is answered. */
async function audited<T>(host: AirlockHost, action: string, details: object, run: () => Promise<T>) {
  try {
    return await run();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    await consoleAudit(host, action, typeof code === "string" ? code : "AIRLOCK_INTERNAL", details);
    throw error;
  }
}

const versionView = z.object({ version: z.string(), signatures: z.number(), latest: z.boolean() });
const diffSchema = z.record(z.string(), z.unknown());

export const consoleRegistryRoutes: RouteSpec[] = [
  defineRoute({
    method: "get",
    path: "/api/registry/search",
    operationId: "searchRegistry",
    summary: "Searches the host's registry by name (and description); each hit says what is installed.",
    tag: "plugins",
    access: "operator",
    query: z.strictObject({ q: z.string().max(64).optional() }),
    responses: {
      200: {
        description: "The packages found.",
        schema: z.object({
          registry: z.string(),
          total: z.number(),
          packages: z.array(
            z.object({
              name: z.string(),
              latest: z.string(),
              description: z.string(),
              installed: z.string().nullable(),
            }),
          ),
        }),
      },
    },
    async handler({ host, query }) {
      const text = query.q ?? "";
      return audited(host, "registry.search", { q: text }, async () => {
        const registry = configuredRegistry(host);
        const { hits, total } = await searchRegistry(registry, text, 20);
        const packages = [];
        for (const hit of hits) {
          const active = await host.getInstalledVersion(hit.name);
          packages.push({
            name: hit.name,
            latest: hit.version,
            description: hit.description,
            installed: active?.version ?? null,
          });
        }
        return { json: { registry, total, packages } };
      });
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/registry/packages/:name",
    operationId: "registryVersions",
    summary: "A registry package's versions, newest first, with how many signatures each carries.",
    tag: "plugins",
    access: "operator",
    params: z.strictObject({ name: namespace }),
    query: z.strictObject({ upgrade: z.enum(["true", "false"]).optional() }),
    responses: {
      200: {
        description: "The versions.",
        schema: z.object({
          registry: z.string(),
          name: z.string(),
          installed: z.string().nullable(),
          versions: z.array(versionView),
        }),
      },
    },
    async handler({ host, params, query }) {
      return audited(host, "registry.versions", { name: params.name }, async () => {
        const registry =
          query.upgrade === "true" ? await upgradeRegistry(host, params.name) : configuredRegistry(host);
        const doc = await fetchPackument(registry, params.name);
        const versions = [...doc.versions.entries()]
          .filter(([v]) => semver.valid(v) !== null)
          .sort(([a], [b]) => semver.rcompare(a, b))
          .map(([version, dist]) => ({
            version,
            signatures: dist.signatures.length,
            latest: version === doc.latest,
          }));
        const installed = (await host.getInstalledVersion(params.name))?.version ?? null;
        return { json: { registry, name: params.name, installed, versions } };
      });
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/registry/preview",
    operationId: "previewRegistryInstall",
    summary:
      "What installing (or, with upgrade, upgrading to) `name@range` from the registry would change; installs nothing.",
    tag: "plugins",
    access: "operator",
    body: z.strictObject({
      name: namespace,
      range: z.string().max(256).optional(),
      upgrade: z.boolean().optional(),
    }),
    responses: {
      200: {
        description:
          "The diff against the active version (as POST /api/plugins/preview answers), the version picked, its description and signature count.",
        schema: diffSchema,
      },
    },
    async handler({ host, body }) {
      const range = (body.range ?? "").trim();
      return audited(host, "registry.preview", { name: body.name, range }, async () => {
        const registry =
          body.upgrade === true ? await upgradeRegistry(host, body.name) : configuredRegistry(host);
        const doc = await fetchPackument(registry, body.name);
        const version = pickVersion(body.name, [...doc.versions.keys()], range, doc.latest);
        const dist = doc.versions.get(version);
        if (dist === undefined)
          throw installError("AIRLOCK_INSTALL_REGISTRY_ERROR", `${body.name}@${version} has no dist`);
        const bytes = await fetchTarball(dist.tarball, MAX_PREVIEW_TARBALL);
        const integrity = sha512Integrity(bytes);
        if (integrity !== dist.integrity) {
          throw installError(
            "AIRLOCK_INSTALL_INTEGRITY_MISMATCH",
            `the tarball of ${body.name}@${version} does not match the registry's integrity`,
            { expected: dist.integrity, actual: integrity },
          );
        }
        const { manifest } = await readPluginTarball(bytes);
        if (manifest.namespace !== body.name || manifest.version !== version) {
          throw installError(
            "AIRLOCK_INSTALL_MISMATCH",
            `the tarball of ${body.name}@${version} holds ${manifest.namespace}@${manifest.version}`,
          );
        }
        const active = await activeRecord(host, body.name);
        return {
          json: {
            ...diffManifests(active?.manifest ?? null, manifest),
            description: manifest.description,
            installed: active !== null,
            registry,
            signatures: dist.signatures.length,
          },
        };
      });
    },
  }),
];
