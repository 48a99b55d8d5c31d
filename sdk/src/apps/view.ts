// The view's side of MCP Apps (SEP-1865, protocol 2026-01-26) for a plugin's UI, imported as
// `@airlock/sdk/apps` from a UI's script (the build bundles it in): JSON-RPC 2.0 over
// postMessage to the parent window. `connect` sends ui/initialize, then
// ui/notifications/initialized, and hands every notification from the client to
// `onNotification`; `request` sends a request (tools/call, ui/message, ...) and resolves with its
// result or rejects with its error. Messages from any window but the parent are ignored; of the
// client's requests only ui/resource-teardown is answered, the rest refused.
// Browser-only: no node:*, no zod. Typed with the little of the DOM it uses (the project's
// TypeScript has no DOM library).

export const APPS_PROTOCOL_VERSION = "2026-01-26";

export interface AppInfo {
  name: string;
  version: string;
}

export interface ViewConnection {
  /** ui/initialize's result (hostContext.toolInfo names the tool the view renders). */
  ready: Promise<InitializeResult | undefined>;
  request(method: string, params?: unknown): Promise<unknown>;
}

export interface InitializeResult {
  hostContext?: { toolInfo?: { tool?: { name?: string } } };
  [key: string]: unknown;
}

/** The window a UI runs in, as far as this module uses it. */
interface ViewWindow {
  parent: { postMessage(message: unknown, targetOrigin: string): void };
  addEventListener(type: "message", listener: (event: { source: unknown; data: unknown }) => void): void;
}

interface Message {
  jsonrpc?: string;
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string };
}

export function connect(
  appInfo: AppInfo,
  onNotification: (method: string, params: Record<string, unknown> | undefined) => void,
): ViewConnection {
  const view = globalThis as unknown as ViewWindow;
  let nextId = 1;
  const pending = new Map<number | string, { resolve(v: unknown): void; reject(e: Error): void }>();
  const send = (message: Message) => view.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
  view.addEventListener("message", (event) => {
    if (event.source !== view.parent) return;
    const data = event.data as Message | null;
    if (data?.jsonrpc !== "2.0") return;
    if (data.id !== undefined && data.method === undefined) {
      const waiter = pending.get(data.id);
      if (waiter === undefined) return;
      pending.delete(data.id);
      if (data.error !== undefined) waiter.reject(new Error(data.error.message ?? "request failed"));
      else waiter.resolve(data.result);
    } else if (typeof data.method === "string") {
      if (data.id === undefined)
        onNotification(data.method, data.params as Record<string, unknown> | undefined);
      else if (data.method === "ui/resource-teardown") send({ id: data.id, result: {} });
      else send({ id: data.id, error: { code: -32601, message: `${data.method} is not supported` } });
    }
  });
  const request = (method: string, params?: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  const ready = request("ui/initialize", {
    appInfo,
    appCapabilities: {},
    protocolVersion: APPS_PROTOCOL_VERSION,
  }).then((result) => {
    send({ method: "ui/notifications/initialized", params: {} });
    return result as InitializeResult | undefined;
  });
  return {
    ready,
    request: async (method, params) => {
      await ready;
      return request(method, params);
    },
  };
}
