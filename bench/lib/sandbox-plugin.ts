// Turns a built bench plugin into a SandboxPlugin (the form the installer hands the sandbox),
// and a minimal call for it, so sandbox-level rows measure the sandbox alone.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolveLimits } from "../../host/src/sandbox/limits.ts";
import type { SandboxCall, SandboxPlugin } from "../../host/src/sandbox/types.ts";
import type { BenchPlugin } from "./plugin.ts";

export function sandboxPluginOf(plugin: BenchPlugin, key: string, codeCachePath?: string): SandboxPlugin {
  return {
    key,
    manifest: plugin.manifest,
    code: readFileSync(plugin.bundlePath, "utf8"),
    limits: resolveLimits({}, {}),
    ...(codeCachePath === undefined ? {} : { codeCachePath }),
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
