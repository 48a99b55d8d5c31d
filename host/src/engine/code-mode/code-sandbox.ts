// The dedicated sandbox code mode runs model-written code in: a sandbox of its own (in worker
// processes when the host's is, one worker; in-process otherwise), never the plugins' sandbox,
// so model code never shares an isolate — or, with workers, a process — with plugin code, and a
// run_code call waiting on its inner calls never holds a slot those inner calls need. Each agent
// gets its own code-mode isolate (keyed by its limits); each call a context of its own.
// Invariants: the runtime is loaded at most once per (agent, limits) at a time; an agent whose
// limits change gets a new isolate and the old one is unloaded; close() closes the sandbox.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { ToolResult } from "@airlock/sdk";
import type { PluginManifest } from "@airlock/sdk/manifest";
import type { BridgeDispatch } from "../../isolation/bridge/types.ts";
import { createSandbox } from "../../isolation/sandbox/index.ts";
import type { CallContextData, EffectiveLimits, Sandbox } from "../../isolation/sandbox/types.ts";
import type { CodeModeLimits } from "./settings.ts";

const RUNTIME_SOURCE = readFileSync(new URL("./isolate/runtime.js", import.meta.url), "utf8");
const RUNTIME_INTEGRITY = `sha512-${createHash("sha512").update(RUNTIME_SOURCE).digest("base64")}`;

/** The runtime as the sandbox loads a plugin: one tool, `run` (see isolate/runtime.js). */
function runtimeManifest(): PluginManifest {
  return {
    manifestVersion: 1,
    namespace: "airlock",
    version: "1.0.0",
    description: "Airlock code mode runtime",
    engine: "*",
    sdk: "1.0.0",
    bundle: { file: "runtime.js", integrity: RUNTIME_INTEGRITY, size: RUNTIME_SOURCE.length },
    tools: [
      {
        name: "run",
        description: "Runs one run_code call.",
        category: "code",
        inputSchema: { type: "object" },
        annotations: {},
        requiredSecrets: [],
        inputExamples: [],
        harness: null,
      },
    ],
    knowledge: null,
    egress: [],
    limits: {},
  };
}

export interface CodeSandboxOptions {
  mode: "workers" | "in-process";
  report(line: string): void;
}

export interface CodeRunRequest {
  agent: string;
  limits: CodeModeLimits;
  input: unknown;
  context: CallContextData;
  signal: AbortSignal;
  dispatch: BridgeDispatch;
  token: string;
}

function effectiveLimits(limits: CodeModeLimits): EffectiveLimits {
  return {
    cpuMs: Math.min(limits.cpuMs, limits.wallMs),
    wallMs: limits.wallMs,
    memoryMb: limits.memoryMb,
    // the code and the run's namespace list
    maxInputBytes: limits.maxCodeBytes * 2 + 256 * 1024,
    maxResultBytes: limits.maxResultBytes,
    concurrency: 4,
    capabilityCalls: limits.maxInnerCalls + 1,
  };
}

export class CodeSandbox {
  readonly #options: CodeSandboxOptions;
  #sandbox: Sandbox | null = null;
  /** agent → the key loaded for it and its load. */
  readonly #loaded = new Map<string, { key: string; ready: Promise<void> }>();
  #closed = false;

  constructor(options: CodeSandboxOptions) {
    this.#options = options;
  }

  #sandboxNow(): Sandbox {
    if (this.#sandbox === null) {
      const { mode, report } = this.#options;
      this.#sandbox =
        mode === "workers"
          ? createSandbox({ mode: "workers", workers: 1, onLog: report })
          : createSandbox({ mode: "in-process", onWarning: report });
    }
    return this.#sandbox;
  }

  /** The sandbox key of the agent's runtime under these limits, loaded. */
  async #ensure(agent: string, limits: CodeModeLimits): Promise<string> {
    const hash = createHash("sha256").update(JSON.stringify(limits)).digest("hex").slice(0, 12);
    const key = `airlock-code/${agent}@${hash}`;
    const known = this.#loaded.get(agent);
    if (known?.key === key) {
      await known.ready;
      return key;
    }
    const sandbox = this.#sandboxNow();
    const ready = sandbox.load({
      key,
      manifest: runtimeManifest(),
      code: RUNTIME_SOURCE,
      limits: effectiveLimits(limits),
      contextPerCall: true,
    });
    this.#loaded.set(agent, { key, ready });
    ready.catch(() => {
      if (this.#loaded.get(agent)?.key === key) this.#loaded.delete(agent);
    });
    if (known !== undefined) {
      void known.ready.then(
        () => sandbox.unload(known.key),
        () => undefined,
      );
    }
    await ready;
    return key;
  }

  async call(request: CodeRunRequest): Promise<ToolResult> {
    if (this.#closed) throw new Error("the code-mode sandbox is closed");
    const pluginKey = await this.#ensure(request.agent, request.limits);
    return this.#sandboxNow().call(
      {
        pluginKey,
        tool: "run",
        input: request.input,
        token: request.token,
        context: request.context,
        signal: request.signal,
      },
      request.dispatch,
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    const sandbox = this.#sandbox;
    this.#sandbox = null;
    this.#loaded.clear();
    await sandbox?.close();
  }
}
