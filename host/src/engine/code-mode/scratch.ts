// The per-conversation scratch store of run_code: a small key/value store the code reaches as
// `scratch.get/set/delete/keys` (isolate/runtime.js) when the operator turned `scratch` on for
// the agent. One Scratch serves one run_code call and is bound, host-side, to that call's agent
// and conversation: the code names only keys, never an agent or a conversation.
// Storage: the store's conversation state, namespace "airlock" (reserved: no plugin's ctx.state
// reaches it), conversation `code-scratch:<conversationId>` (so no conversation's scratch shares
// rows or a byte total with another's, nor with the host's own settings rows), key as given.
// Each row is `{"e": <expires at, ms>, "v": <value>}`; a value lives scratchTtlSeconds after its
// last set, and an expired one reads as absent and is removed when next met.
// Invariants: with `enabled` false every call is refused (the runtime then defines no `scratch`
// global at all; this is the host's own check behind it); a refused call (bad key, not JSON, over a cap, past scratchMaxOps) stores nothing,
// throws its AIRLOCK_CODE_SCRATCH_* code and is audited; the byte cap is enforced by the store
// in one transaction; the key cap is checked before a new key is written, one call at a time.
import { AirlockError } from "@airlock/sdk";
import type { AuditInput, Store } from "../../state/store/types.ts";
import { type CodeModeErrorCode, codeModeError } from "./errors.ts";
import type { CodeModeLimits } from "./settings.ts";

const NAMESPACE = "airlock";
const KEY = /^[A-Za-z0-9._:/-]{1,128}$/;
export const SCRATCH_METHODS = ["get", "set", "delete", "keys"] as const;
type Method = (typeof SCRATCH_METHODS)[number];

export interface ScratchBinding {
  /** The operator's `scratch` setting: off, every call is refused (AIRLOCK_CODE_SCRATCH_OFF). */
  enabled: boolean;
  store: Store;
  agent: string;
  conversationId: string;
  /** The run_code call's run and id (audit entries of refusals name them). */
  runId: string;
  callId: string;
  limits: CodeModeLimits;
  audit(entry: AuditInput): Promise<void>;
  now?: () => number;
}

export interface Scratch {
  /** One call from the code: `method` with its arguments as the code passed them. */
  call(method: string, args: unknown[]): Promise<unknown>;
  /** Calls answered so far (the run_code audit entry records it). */
  readonly ops: number;
}

/** The store's conversation id of a conversation's scratch (injective; never a settings row's). */
export function scratchConversation(conversationId: string): string {
  return `code-scratch:${conversationId}`;
}

export function createScratch(b: ScratchBinding): Scratch {
  const conv = scratchConversation(b.conversationId);
  const now = b.now ?? Date.now;
  let ops = 0;
  let queue: Promise<unknown> = Promise.resolve();

  async function refuse(method: string, code: CodeModeErrorCode, message: string): Promise<never> {
    await b.audit({
      agent: b.agent,
      plugin: "airlock",
      tool: "run_code",
      conversationId: b.conversationId,
      kind: "capability",
      action: `scratch.${method}`,
      allowed: false,
      success: false,
      error: code,
      durationMs: null,
      details: { runId: b.runId, parentCallId: b.callId },
    });
    throw codeModeError(code, message);
  }

  function keyOf(method: string, raw: unknown): Promise<string> {
    if (typeof raw === "string" && KEY.test(raw)) return Promise.resolve(raw);
    return refuse(
      method,
      "AIRLOCK_CODE_SCRATCH_KEY_INVALID",
      "a scratch key is 1–128 characters of A–Z, a–z, 0–9 and . _ : / -",
    );
  }

  /** The live value's JSON, or null (absent, expired — then removed — or unreadable). */
  async function read(key: string): Promise<string | null> {
    const row = await b.store.getState(b.agent, conv, NAMESPACE, key);
    if (row === null) return null;
    let parsed: { e?: unknown; v?: unknown };
    try {
      parsed = JSON.parse(row) as { e?: unknown; v?: unknown };
    } catch {
      parsed = {}; // a row this version cannot read: treated as expired
    }
    if (typeof parsed.e !== "number" || parsed.e <= now() || !("v" in parsed)) {
      await b.store.deleteState(b.agent, conv, NAMESPACE, key);
      return null;
    }
    return JSON.stringify(parsed.v);
  }

  async function liveKeys(): Promise<string[]> {
    const keys: string[] = [];
    for (const key of await b.store.listStateKeys(b.agent, conv, NAMESPACE)) {
      if ((await read(key)) !== null) keys.push(key);
    }
    return keys;
  }

  async function set(rawKey: unknown, value: unknown): Promise<void> {
    const key = await keyOf("set", rawKey);
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch {
      json = undefined; // a BigInt or a cycle: refused below
    }
    if (json === undefined) {
      return refuse("set", "AIRLOCK_CODE_SCRATCH_VALUE_INVALID", "scratch.set takes a JSON value");
    }
    const bytes = Buffer.byteLength(json, "utf8");
    if (bytes > b.limits.scratchMaxValueBytes) {
      return refuse(
        "set",
        "AIRLOCK_CODE_SCRATCH_TOO_LARGE",
        `the value is ${bytes} bytes of JSON, over scratchMaxValueBytes = ${b.limits.scratchMaxValueBytes}`,
      );
    }
    if ((await read(key)) === null && (await liveKeys()).length >= b.limits.scratchMaxKeys) {
      return refuse(
        "set",
        "AIRLOCK_CODE_SCRATCH_TOO_LARGE",
        `this conversation's scratch holds scratchMaxKeys = ${b.limits.scratchMaxKeys} keys; delete one first`,
      );
    }
    const row = `{"e":${now() + b.limits.scratchTtlSeconds * 1000},"v":${json}}`;
    const write = () => b.store.setState(b.agent, conv, NAMESPACE, key, row, b.limits.scratchMaxBytes);
    if (!(await write())) {
      await liveKeys(); // drops expired rows, which still count, then tries once more
      if (!(await write())) {
        return refuse(
          "set",
          "AIRLOCK_CODE_SCRATCH_TOO_LARGE",
          `this conversation's scratch would pass scratchMaxBytes = ${b.limits.scratchMaxBytes} bytes; delete something first`,
        );
      }
    }
  }

  async function answer(method: Method, args: unknown[]): Promise<unknown> {
    switch (method) {
      case "get": {
        const json = await read(await keyOf("get", args[0]));
        return json === null ? undefined : (JSON.parse(json) as unknown);
      }
      case "set":
        return set(args[0], args[1]);
      case "delete":
        return b.store.deleteState(b.agent, conv, NAMESPACE, await keyOf("delete", args[0]));
      case "keys":
        return liveKeys();
    }
  }

  return {
    get ops() {
      return ops;
    },
    call(method, args) {
      const run = async (): Promise<unknown> => {
        if (!(SCRATCH_METHODS as readonly string[]).includes(method)) {
          throw new AirlockError(
            "AIRLOCK_BRIDGE_UNKNOWN_CAPABILITY",
            "scratch offers get, set, delete, keys",
          );
        }
        if (!b.enabled) {
          return refuse(
            method,
            "AIRLOCK_CODE_SCRATCH_OFF",
            "the scratch store is off for this agent (an operator turns it on)",
          );
        }
        if (ops >= b.limits.scratchMaxOps) {
          return refuse(
            method,
            "AIRLOCK_CODE_SCRATCH_OPS_LIMIT",
            `the code made more than scratchMaxOps = ${b.limits.scratchMaxOps} scratch calls`,
          );
        }
        ops++;
        return answer(method as Method, Array.isArray(args) ? args : []);
      };
      // one call at a time, so the key cap holds within a run
      const next = queue.then(run, run);
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
