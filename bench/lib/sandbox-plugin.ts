// Turns a built bench plugin into a SandboxPlugin (the form the installer hands the sandbox),
// and a minimal call for it, so sandbox-level rows measure the sandbox alone.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolveLimits } from "../../host/src/isolation/sandbox/limits.ts";
import type { SandboxCall, SandboxPlugin } from "../../host/src/isolation/sandbox/types.ts";
import type { BenchPlugin } from "./plugin.ts";

/** The key that authenticates the run's code cache files (a host keeps one of its own). */
const CODE_CACHE_KEY = randomBytes(32).toString("base64");

export function sandboxPluginOf(plugin: BenchPlugin, key: string, codeCachePath?: string): SandboxPlugin {
  return {
    key,
    manifest: plugin.manifest,
    code: readFileSync(plugin.bundlePath, "utf8"),
    limits: resolveLimits({}, {}),
    // A cache file is used only under a key that authenticates it (bundle-compiler.ts).
    ...(codeCachePath === undefined ? {} : { codeCachePath, codeCacheKey: CODE_CACHE_KEY }),
  };
}

export function benchCall(pluginKey: string, tool: string, input: unknown, agent = "bench"): SandboxCall {
  return {
    pluginKey,
    tool,
    input,
    token: randomBytes(32).toString("base64url"),
    context: {
      instanceId: agent,
      conversationId: "c1",
      toolId: `${pluginKey.split("@")[0]}:${tool}`,
      conversation: [],
      attachments: [],
      knowledgeLevel: null,
    },
    signal: new AbortController().signal,
  };
}

/** A bridge for calls that make no capability calls: any call is a bug in the benchmark. */
export const noBridge = async (): Promise<never> => {
  throw new Error("the benchmark tool made an unexpected capability call");
};
