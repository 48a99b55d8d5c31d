// The `http-json` plugin: GET or POST JSON to the declared API host through ctx.fetch.
// Invariants: the API key travels only as `ctx.secrets.ref("api_key")` in a header, so the
// host substitutes it outside the isolate and the plugin never sees its value; only the
// declared host is reachable (the manifest's egress, narrowed by the operator); upstream
// failures and refused requests come back as `{success:false, error}` for the model.
import { definePlugin, defineTool, hasCode, type SecretDeclaration, type ToolContext } from "@airlock/sdk";
import { z } from "zod";

export const API_HOST = "api.jsonhub.dev";
/** The hosted API, or a local one on loopback (for development; the operator must allow it). */
// The loopback endpoint (local use, tests) is on a port below Linux's ephemeral range
// (32768–60999), so a server bound to it never collides with an outgoing connection's port.
export const ENDPOINTS = [`https://${API_HOST}`, "http://127.0.0.1:17911"] as const;

async function request(
  ctx: ToolContext,
  method: "GET" | "POST",
  path: string,
  body: string | null,
): Promise<{ success: true; result: unknown } | { success: false; error: string }> {
  if (!path.startsWith("/")) return { success: false, error: "path must start with '/', e.g. /v1/items" };
  const headers: Record<string, string | { $secretRef: string }> = {
    accept: "application/json",
    "x-api-key": ctx.secrets.ref("api_key"),
  };
  if (body !== null) headers["content-type"] = "application/json";
  const chosen = await ctx.secrets.get("endpoint");
  const base = ENDPOINTS.find((e) => e === chosen) ?? ENDPOINTS[0];
  try {
    const res = await ctx.fetch(`${base}${path}`, {
      method,
      headers,
      ...(body !== null ? { body } : {}),
    });
    if (res.status < 200 || res.status > 299) {
      return {
        success: false,
        error: `The API answered ${res.status} ${res.statusText}: ${(await res.text()).slice(0, 300)}`,
      };
    }
    return { success: true, result: await res.json() };
  } catch (err) {
    const code = hasCode(err) ? err.code : "AIRLOCK_FETCH_NETWORK";
    return { success: false, error: `The request could not be made (${code}).` };
  }
}

const apiKey: SecretDeclaration = {
  key: "api_key",
  type: "text",
  label: "JSONHub API key",
  description: "Sent as the X-Api-Key header to api.jsonhub.dev; never visible to the plugin.",
};

const endpoint: SecretDeclaration = {
  key: "endpoint",
  type: "select",
  choices: [...ENDPOINTS],
  optional: true,
  label: "API endpoint",
  description: "The hosted API (default) or a local one.",
};

export const getJson = defineTool({
  name: "getJson",
  description: `GET a JSON resource from ${API_HOST} (the path, e.g. /v1/items?limit=5).`,
  category: "web",
  requiredSecrets: [apiKey, endpoint],
  annotations: { title: "Get JSON", readOnlyHint: true, openWorldHint: true },
  uses: {
    fetch: [
      { host: API_HOST, methods: ["GET"] },
      { host: "127.0.0.1", methods: ["GET"] },
    ],
  },
  presentation: { label: "Fetch JSON", icon: "globe", group: "web" },
  inputExamples: [{ label: "list", input: { path: "/v1/items?limit=5" } }],
  parameters: z.object({ path: z.string().min(1).max(2000).describe("Path and query, starting with '/'.") }),
  execute: (input, ctx) => request(ctx, "GET", input.path, null),
});

export const postJson = defineTool({
  name: "postJson",
  description: `POST a JSON document to ${API_HOST} and return the JSON answer.`,
  category: "web",
  requiredSecrets: [apiKey, endpoint],
  annotations: { title: "Post JSON", readOnlyHint: false, openWorldHint: true },
  uses: {
    fetch: [
      { host: API_HOST, methods: ["POST"] },
      { host: "127.0.0.1", methods: ["POST"] },
    ],
  },
  presentation: { label: "Send JSON", icon: "send", group: "web" },
  parameters: z.object({
    path: z.string().min(1).max(2000).describe("Path starting with '/'."),
    json: z.string().describe("The JSON body, as a string."),
  }),
  execute: async (input, ctx) => {
    try {
      JSON.parse(input.json);
    } catch {
      return { success: false, error: "json is not valid JSON; send a JSON document as a string." };
    }
    return request(ctx, "POST", input.path, input.json);
  },
});

export default definePlugin({
  namespace: "http-json",
  version: "1.0.0",
  engine: "^1.0.0",
  description: `Reads and writes JSON on ${API_HOST} with an injected API key.`,
  egress: [
    { host: API_HOST, secrets: ["api_key"] },
    { host: "127.0.0.1", schemes: ["http"], ports: [17911], secrets: ["api_key"] },
  ],
  tools: [getJson, postJson],
});
