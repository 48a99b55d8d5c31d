// The console's view of the plugin registry: search it by name, list a package's versions, and
// see what installing or upgrading to one version would change before confirming (the same diff
// an uploaded .tgz gets, plugin-diff.ts). The registry is the one `airlock install name@range`
// resolves against (host.plugins.registryUrl: --registry / AIRLOCK_REGISTRY_URL), or another the
// operator names with `registry` (an http(s) URL; the install then names it in its spec,
// `<URL>/name@version`); an upgrade preview reads the registry the active version came from, as
// `upgrade` itself does.
// The reads themselves are the host's (host.plugins.registry, engine/install/registry-browser.ts).
// Invariants: operator access only; nothing is installed or written but the audit entry of a
// refusal; the preview reads the tarball the installer would fetch, checked against the
// packument's integrity, never the packument's word for its manifest.
import { z } from "zod";
import type { AirlockHost } from "../../../contracts/host.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import { namespace } from "../schemas.ts";
import { diffManifests } from "./plugin-diff.ts";
import { consoleAudit } from "./session.ts";

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

/** Another registry than the host's, named by the operator (the one a `<URL>/name@range` spec names). */
const registryUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/[^/\s]+\S*$/, "an http(s) registry URL")
  .optional();
const named = (registry: string | undefined) => (registry === undefined ? {} : { registry });

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
    query: z.strictObject({ q: z.string().max(64).optional(), registry: registryUrl }),
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
      return audited(host, "registry.search", { q: text, ...named(query.registry) }, async () => {
        const { registry, hits, total } = await host.plugins.registry.search(text, 20, named(query.registry));
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
    query: z.strictObject({ upgrade: z.enum(["true", "false"]).optional(), registry: registryUrl }),
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
      return audited(host, "registry.versions", { name: params.name, ...named(query.registry) }, async () => {
        const { registry, versions } = await host.plugins.registry.versions(params.name, {
          upgrade: query.upgrade === "true",
          ...named(query.registry),
        });
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
      registry: registryUrl,
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
      return audited(
        host,
        "registry.preview",
        { name: body.name, range, ...named(body.registry) },
        async () => {
          const { registry, manifest, signatures } = await host.plugins.registry.fetchVersion(
            body.name,
            range,
            { upgrade: body.upgrade === true, ...named(body.registry) },
          );
          const active = await host.getInstalledVersion(body.name);
          return {
            json: {
              ...diffManifests(active?.manifest ?? null, manifest),
              description: manifest.description,
              installed: active !== null,
              registry,
              signatures,
            },
          };
        },
      );
    },
  }),
];
