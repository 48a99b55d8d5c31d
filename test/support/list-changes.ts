// Waiting for an MCP client over HTTP to be told of a change. The client opens its notification
// stream after connect and nothing tells it (or the test) when the server has it: a change made
// before then is told to no one. So the change is made again until the client is told of one
// (setToolsEnabled and the tools PATCH announce even when nothing changes).

/** Makes `change` every 250 ms until `told` settles; throws after 40 untold changes. */
export async function repeatUntilTold(change: () => Promise<unknown>, told: Promise<unknown>): Promise<void> {
  const heard = told.then(() => true);
  for (let attempt = 1; ; attempt++) {
    await change();
    if (await Promise.race([heard, new Promise<false>((r) => setTimeout(() => r(false), 250))])) return;
    if (attempt === 40) throw new Error("the client was told of none of 40 changes");
  }
}
