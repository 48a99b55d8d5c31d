// Installing a remote MCP server as a plugin (`host.remote.install`): check the spec and the
// options, refuse a namespace already taken, list the server's tools and write revision 1.
// Contract: `installRemote` runs inside servers.ts's per-namespace queue and audit; it answers
// the InstallReport of the new plugin (version 0.0.1, no previous, no signer).
// Invariants: nothing is written unless the server was listed and every definition mapped (a
// refusal leaves the store as it was); a URL passes install-options.ts's checks, a stdio server's
// command must be the one the operator allowed and its --namespace must be a valid one; a server
// behind OAuth that answers 401 is installed with no tools pinned (a review as a connected agent
// pins them).
import { hasCode, namespaceRefusal } from "@airlock/sdk";
import type { InstallReport } from "../../contracts/host.ts";
import type { RemoteContext } from "./context.ts";
import { mapListing, type RemoteSection, type RemoteTool, remoteRecord } from "./definitions.ts";
import { remoteError } from "./errors.ts";
import { checkOptions, checkStdio, parseRemoteUrl, stdioCommandOf } from "./install-options.ts";
import { listNow, writeRevision } from "./server-revisions.ts";
import type { RemoteInstallOptions } from "./types.ts";

/** The remote section of revision 1, before its tools are listed. */
function firstSection(
  url: string,
  stdio: { command: string; args: string[] } | null,
  options: RemoteInstallOptions,
): RemoteSection {
  return {
    url,
    allowPrivate: [...(options.allowPrivate ?? [])],
    header: options.header === undefined ? null : { ...options.header },
    stdio,
    oauth:
      options.oauth === undefined
        ? null
        : {
            provider: options.oauth.provider,
            authorizationUrl: options.oauth.authorizationUrl,
            tokenUrl: options.oauth.tokenUrl,
            ...(options.oauth.revocationUrl === undefined
              ? {}
              : { revocationUrl: options.oauth.revocationUrl }),
            scopes: [...(options.oauth.scopes ?? [])],
          },
    server: null,
    revision: 1,
    tools: {},
  };
}

export async function installRemote(
  ctx: RemoteContext,
  namespace: string,
  spec: string,
  options: RemoteInstallOptions,
): Promise<InstallReport> {
  const command = stdioCommandOf(spec);
  const stdio = command === undefined ? null : checkStdio(command, options);
  const url = stdio === null ? parseRemoteUrl(spec) : `stdio:${stdio.command}`;
  if (stdio === null) checkOptions(options, url);
  else {
    const refusal =
      typeof options?.namespace === "string" ? namespaceRefusal(options.namespace) : "is missing";
    if (refusal !== null) {
      throw remoteError(
        "AIRLOCK_REMOTE_SPEC_INVALID",
        `--namespace ${JSON.stringify(options?.namespace ?? "")} ${refusal}`,
      );
    }
  }
  if (
    (await ctx.store.listInstalledPlugins(namespace)).length > 0 ||
    (await ctx.store.getActivation(namespace)) !== null
  ) {
    throw remoteError(
      "AIRLOCK_REMOTE_NAMESPACE_TAKEN",
      `a plugin is already installed under "${namespace}"; uninstall it or pick another --namespace`,
    );
  }
  const section = firstSection(url, stdio, options);
  // A server behind OAuth answers 401 until an agent connects: it is installed with no
  // tools pinned, and a review as a connected agent (--as-agent) pins them.
  const { tools, server } = await listNow(ctx, section, namespace, options.asAgent).catch(
    (error: unknown) => {
      if (section.oauth !== null && hasCode(error, "AIRLOCK_REMOTE_UNAUTHORIZED")) {
        return { tools: [] as RemoteTool[], server: null };
      }
      throw error;
    },
  );
  const listing = mapListing(namespace, tools);
  const { tools: _none, ...rest } = { ...section, server };
  const record = remoteRecord({
    namespace,
    section: rest,
    listing,
    readOnly: new Set(),
    installedAt: new Date().toISOString(),
  });
  await writeRevision(ctx, record);
  return {
    namespace,
    version: record.version,
    previous: null,
    tools: record.manifest.tools.map((t) => `${namespace}:${t.name}`),
    signer: null,
  };
}
