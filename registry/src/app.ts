// The registry's HTTP surface as a hono app (tests drive it in-process with `app.request`).
// Routes: GET /-/ping, GET /-/v1/search?text=&size= (search.ts), GET /{name} (packument), GET /{name}/-/{name}-{version}.tgz (bytes),
// PUT /{name} (publish, `Authorization: Bearer <token>`). Every failure is
// `{error: {code, message, details?}}` with the code's status; nothing else leaks (no stacks).
import { hasCode } from "@airlock/sdk/errors";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { registryError } from "./errors.ts";
import { buildPackument, tarballFileName } from "./packument.ts";
import { publish } from "./publish.ts";
import { searchPackages, searchSize } from "./search.ts";
import type { RegistryStorage } from "./storage.ts";

export interface RegistryAppOptions {
  storage: RegistryStorage;
  /** The URL clients reach this registry at; tarball links are built from it. Default: the request's origin. */
  publicUrl?: string;
  /** Largest accepted tarball, compressed. Default 8 MiB. */
  maxTarballBytes?: number;
  /** Called for unexpected (5xx) failures, which reach the client only as AIRLOCK_REGISTRY_INTERNAL. */
  onInternalError?: (err: unknown) => void;
}

function errorBody(err: unknown): { status: number; body: { error: Record<string, unknown> } } {
  if (hasCode(err) && err.code.startsWith("AIRLOCK_")) {
    const e = err as { code: string; message: string; status?: number; details?: Record<string, unknown> };
    const status = typeof e.status === "number" && e.status >= 400 && e.status < 600 ? e.status : 400;
    return {
      status,
      body: {
        error: {
          code: e.code,
          message: e.message,
          ...(e.details === undefined ? {} : { details: e.details }),
        },
      },
    };
  }
  return {
    status: 500,
    body: { error: { code: "AIRLOCK_REGISTRY_INTERNAL", message: "internal registry error" } },
  };
}

export function createRegistryApp(options: RegistryAppOptions): Hono {
  const { storage } = options;
  const maxTarballBytes = options.maxTarballBytes ?? 8 * 1024 * 1024;
  const app = new Hono();

  app.onError((err, c) => {
    const { status, body } = errorBody(err);
    if (status >= 500) options.onInternalError?.(err);
    return c.json(body, status as ContentfulStatusCode);
  });
  app.notFound((c) =>
    c.json({ error: { code: "AIRLOCK_REGISTRY_NOT_FOUND", message: "no such route" } }, 404),
  );

  app.get("/-/ping", (c) => c.json({ ok: true }));

  app.get("/-/v1/search", (c) =>
    c.json(searchPackages(storage, c.req.query("text") ?? "", searchSize(c.req.query("size")))),
  );

  app.get("/:name", (c) => {
    const name = c.req.param("name");
    const pkg = storage.getPackage(name);
    if (pkg === null) throw registryError("AIRLOCK_REGISTRY_NOT_FOUND", `no package "${name}"`, { name });
    return c.json(buildPackument(pkg, options.publicUrl ?? new URL(c.req.url).origin));
  });

  app.get("/:name/-/:file", (c) => {
    const name = c.req.param("name");
    const file = c.req.param("file");
    const pkg = storage.getPackage(name);
    const row = pkg?.versions.find((v) => tarballFileName(name, v.version) === file);
    if (row === undefined)
      throw registryError("AIRLOCK_REGISTRY_NOT_FOUND", `no tarball "${file}"`, { name, file });
    const bytes = storage.readTarball(row.sha512);
    return c.body(bytes.buffer as ArrayBuffer, 200, {
      "content-type": "application/octet-stream",
      "content-length": String(bytes.length),
      "cache-control": "public, max-age=31536000, immutable",
    });
  });

  app.put(
    "/:name",
    bodyLimit({
      maxSize: Math.ceil((maxTarballBytes * 4) / 3) + 1024 * 1024,
      onError: (c) =>
        c.json(
          {
            error: {
              code: "AIRLOCK_REGISTRY_TOO_LARGE",
              message: "the publish body is larger than the registry accepts",
              details: { limit: maxTarballBytes },
            },
          },
          413,
        ),
    }),
    async (c) => {
      const auth = c.req.header("authorization") ?? "";
      const match = /^Bearer (\S+)$/.exec(auth);
      const token = match?.[1] === undefined ? null : storage.findToken(match[1]);
      if (token === null) {
        throw registryError(
          "AIRLOCK_REGISTRY_UNAUTHORIZED",
          "publishing needs a valid `Authorization: Bearer <token>`",
        );
      }
      let body: unknown;
      try {
        body = await c.req.json();
      } catch (err) {
        if ((err as Error).name === "BodyLimitError") throw err;
        throw registryError("AIRLOCK_REGISTRY_BAD_REQUEST", "the body is not JSON", undefined, err);
      }
      const row = await publish(storage, c.req.param("name"), body, token.owner, { maxTarballBytes });
      return c.json({ ok: true, name: row.name, version: row.version, integrity: row.integrity }, 201);
    },
  );

  return app;
}
