// A minimal MCP Apps view bridge (SEP-1865, 2026-01-26): JSON-RPC 2.0 over postMessage to the
// parent window. `connect` sends ui/initialize, then ui/notifications/initialized, and hands
// every notification from the host to `onNotification`; `request` sends a request (tools/call,
// ui/message, ...) and resolves with its result or rejects with its error. Messages from any
// window but the parent are ignored.
const PROTOCOL_VERSION = "2026-01-26";

export function connect(appInfo, onNotification) {
  let nextId = 1;
  const pending = new Map();
  const send = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const data = event.data;
    if (data?.jsonrpc !== "2.0") return;
    if (data.id !== undefined && data.method === undefined) {
      const waiter = pending.get(data.id);
      if (waiter === undefined) return;
      pending.delete(data.id);
      if (data.error !== undefined) waiter.reject(new Error(data.error.message ?? "request failed"));
      else waiter.resolve(data.result);
    } else if (typeof data.method === "string" && data.id === undefined) {
      onNotification(data.method, data.params);
    } else if (typeof data.method === "string") {
      // a request from the host: ui/resource-teardown is answered, anything else refused
      if (data.method === "ui/resource-teardown") send({ id: data.id, result: {} });
      else send({ id: data.id, error: { code: -32601, message: `${data.method} is not supported` } });
    }
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  const ready = request("ui/initialize", {
    appInfo,
    appCapabilities: {},
    protocolVersion: PROTOCOL_VERSION,
  }).then((result) => {
    send({ method: "ui/notifications/initialized", params: {} });
    return result;
  });
  return {
    ready,
    request: async (method, params) => {
      await ready;
      return request(method, params);
    },
  };
}
