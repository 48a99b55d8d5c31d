// Builds the OpenAPI 3.1 document of the admin API from the same route table app.ts registers,
// so a route cannot exist without being described. Schemas come from the routes' zod schemas
// (z.toJSONSchema); every operation lists the error responses it can give, all shaped
// `{error: {code, message, details?}}` with codes from API_ERRORS (docs/api.md lists them).
import { z } from "zod";
import { API_ERRORS } from "./errors.ts";
import { openApiPath, type RouteSpec } from "./route-table.ts";
import { errorResponse } from "./schemas.ts";

type JsonObject = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonObject {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonObject;
  delete json.$schema;
  return json;
}

function parametersOf(schema: z.ZodType | undefined, where: "path" | "query"): JsonObject[] {
  if (schema === undefined) return [];
  const json = schemaOf(schema, "input");
  const properties = (json.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || required.has(name),
    schema: property,
  }));
}

function errorStatuses(route: RouteSpec): number[] {
  const statuses = new Set<number>([500]);
  if (route.access !== "public") statuses.add(401);
  if (route.access === "operator" || route.access === "agent-self") statuses.add(403);
  if (route.params !== undefined || route.query !== undefined || route.body !== undefined) statuses.add(400);
  if (route.path.includes(":")) statuses.add(404);
  if (route.body !== undefined || route.rawBody !== undefined) {
    statuses.add(413);
    statuses.add(415);
  }
  return [...statuses].sort();
}

function operationOf(route: RouteSpec): JsonObject {
  const operation: JsonObject = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    "x-airlock-access": route.access,
  };
  if (route.access === "public") operation.security = [];
  if (route.deprecated === true) operation.deprecated = true;
  const parameters = [...parametersOf(route.params, "path"), ...parametersOf(route.query, "query")];
  if (parameters.length > 0) operation.parameters = parameters;
  if (route.body !== undefined) {
    const content: JsonObject = { "application/json": { schema: schemaOf(route.body, "input") } };
    if (route.rawBody !== undefined) {
      content["application/octet-stream"] = {
        schema: {
          type: "string",
          contentMediaType: "application/gzip",
          description: route.rawBody.description,
        },
      };
    }
    operation.requestBody = { required: route.bodyOptional !== true, content };
  }
  const responses: JsonObject = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const mediaType = response.mediaType ?? "application/json";
    responses[status] = {
      description: response.description,
      content: {
        [mediaType]: { schema: response.schema === undefined ? {} : schemaOf(response.schema, "output") },
      },
    };
  }
  for (const status of errorStatuses(route)) {
    responses[String(status)] = {
      description: "An error; `error.code` is one of the AIRLOCK_* codes.",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  operation.responses = responses;
  return operation;
}

/** A path item added by a component other than the route table (the MCP endpoint). */
export interface ExtraPath {
  path: string;
  item: JsonObject;
}

export function buildOpenApiDocument(
  routes: readonly RouteSpec[],
  version: string,
  extra: readonly ExtraPath[] = [],
): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const key = openApiPath(route.path);
    paths[key] ??= {};
    (paths[key] as JsonObject)[route.method] = operationOf(route);
  }
  for (const { path, item } of extra) paths[path] = { ...(paths[path] ?? {}), ...item };
  return {
    openapi: "3.1.0",
    info: {
      title: "Airlock admin API",
      version,
      description:
        "Administration of an Airlock host: catalogue, per-agent tools, secrets, knowledge levels, plugins, " +
        "audit, tool calls, approvals and events. Authenticate with `Authorization: Bearer <token>`.",
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { Error: schemaOf(errorResponse, "output") },
      "x-airlock-error-codes": Object.fromEntries(
        Object.entries(API_ERRORS).map(([code, spec]) => [
          code,
          { status: spec.status, description: spec.description },
        ]),
      ),
    },
  };
}
