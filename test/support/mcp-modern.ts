// A raw MCP 2026-07-28 request over streamable HTTP (the standard headers, the per-request
// envelope), for what SDK v2 2.4.0's client cannot send or read: the tasks extension.
const envelope = (extensions: Record<string, unknown>) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { extensions },
});
export const TASKS = { "io.modelcontextprotocol/tasks": {} };

/** One 2026-07-28 JSON-RPC request; the `result` (or the error, thrown). */
export async function modern(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  extensions: Record<string, unknown> = TASKS,
): Promise<Record<string, unknown>> {
  const name = (params.name ?? params.taskId) as string | undefined;
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: { ...params, _meta: envelope(extensions) },
    }),
  });
  const text = await res.text();
  const json = JSON.parse(
    text.startsWith("event:") || text.startsWith("data:") ? (/data: (.*)/.exec(text)?.[1] ?? "{}") : text,
  ) as {
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
  if (json.error !== undefined) throw Object.assign(new Error(json.error.message), json.error);
  return json.result as Record<string, unknown>;
}
