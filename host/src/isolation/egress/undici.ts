// undici, imported on the first outbound request (ctx.fetch, a remote MCP server, the registry)
// instead of when the host's modules load: the import is ≈ 100 ms of every `airlock` command's
// start-up, and most starts make no such request.
// Invariant: the module is imported once; every caller shares the one promise.
const importUndici = () => import("undici");

let loading: ReturnType<typeof importUndici> | undefined;

export function loadUndici(): ReturnType<typeof importUndici> {
  loading ??= importUndici();
  return loading;
}
