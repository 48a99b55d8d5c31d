// Plugin UIs as MCP resources (MCP Apps, SEP-1865): `resources/list` lists the `ui://` UIs the
// tools this server serves render in, `resources/read` answers one UI's HTML with the MIME type
// `text/html;profile=mcp-app` and its declared CSP and border preference under `_meta.ui`, and
// `resources/templates/list` is empty. Everything goes through the library API
// (host.listUiResources / host.readUiResource), so a UI no enabled tool of the agent names is
// neither listed nor readable: the host refuses it (AIRLOCK_UI_UNKNOWN, audited), answered here
// as the SDK's resource-not-found error with the code in its message.
// Invariants: both eras share this (server.ts registers it on every instance); the listing is
// in URI order and follows the request's run (a server restricted to some tools lists only their UIs).
import { hasCode } from "@airlock/sdk";
import { ResourceNotFoundError, type Server } from "@modelcontextprotocol/server";
import type { AirlockHost } from "../../contracts/host.ts";
import type { UiResourceView } from "../../contracts/tools.ts";
import { type McpCallerContext, type McpServerOptions, servedOf, startRun } from "./serving.ts";

function uiMeta(view: UiResourceView): Record<string, unknown> {
  const ui: Record<string, unknown> = {};
  if (view.csp !== undefined) ui.csp = structuredClone(view.csp);
  if (view.prefersBorder !== undefined) ui.prefersBorder = view.prefersBorder;
  return { ui, "airlock/integrity": view.integrity };
}

export function registerUiResources(
  server: Server,
  unit: { host: AirlockHost; agent: string; options: McpServerOptions; caller: McpCallerContext },
): void {
  const { host, agent, options, caller } = unit;
  server.setRequestHandler("resources/list", async () => {
    const run = await startRun(host, agent, options, caller);
    const named = new Set(servedOf(run).tools.map((t) => t.ui?.resourceUri));
    const views = (await host.listUiResources(agent)).filter((v) => named.has(v.uri));
    return {
      resources: views.map((v) => {
        const resource: Record<string, unknown> = { uri: v.uri, name: v.name, mimeType: v.mimeType };
        if (v.title !== undefined) resource.title = v.title;
        if (v.description !== undefined) resource.description = v.description;
        resource._meta = uiMeta(v);
        return resource as { uri: string; name: string };
      }),
    };
  });
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", async (request) => {
    const uri = String(request.params.uri);
    try {
      const doc = await host.readUiResource(agent, uri);
      return { contents: [{ uri: doc.uri, mimeType: doc.mimeType, text: doc.html, _meta: uiMeta(doc) }] };
    } catch (error) {
      if (hasCode(error, "AIRLOCK_UI_UNKNOWN") || hasCode(error, "AIRLOCK_UI_INTEGRITY")) {
        throw new ResourceNotFoundError(uri.slice(0, 200), `${error.code}: ${error.message}`);
      }
      throw error;
    }
  });
}
