// beforeToolCall / afterToolCall hooks. Hooks run in registration order. Before-hooks: the
// first `{block}` wins (its reason becomes the tool's result), `{input}` rewrites the input
// the next hook (and the tool) sees, a throwing hook blocks with AIRLOCK_HOOK_FAILED (a
// policy that cannot decide must not let the call through). After-hooks all run; a throwing
// one is reported to `onAfterHookError` and never changes the call's outcome.
import type {
  AfterToolCallContext,
  AfterToolCallHook,
  BeforeToolCallContext,
  BeforeToolCallHook,
} from "../../contracts/host.ts";

export type BeforeHooksOutcome =
  | { kind: "proceed"; input: Record<string, unknown> }
  | { kind: "blocked"; reason: string }
  | { kind: "failed"; message: string };

export interface HookRegistry {
  addBefore(hook: BeforeToolCallHook): () => void;
  addAfter(hook: AfterToolCallHook): () => void;
  runBefore(ctx: BeforeToolCallContext): Promise<BeforeHooksOutcome>;
  runAfter(ctx: AfterToolCallContext, onAfterHookError: (error: unknown) => void): Promise<void>;
  /** Registered hooks right now (the pipeline skips building a context nobody reads). */
  readonly beforeCount: number;
  readonly afterCount: number;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

export function createHookRegistry(): HookRegistry {
  const before: Array<{ hook: BeforeToolCallHook }> = [];
  const after: Array<{ hook: AfterToolCallHook }> = [];
  const remover =
    <T>(list: T[], entry: T) =>
    () => {
      const at = list.indexOf(entry);
      if (at >= 0) list.splice(at, 1);
    };

  return {
    addBefore(hook) {
      const entry = { hook };
      before.push(entry);
      return remover(before, entry);
    },
    addAfter(hook) {
      const entry = { hook };
      after.push(entry);
      return remover(after, entry);
    },
    async runBefore(ctx) {
      let input = ctx.input;
      for (const { hook } of [...before]) {
        let result: unknown;
        try {
          // Each hook gets its own copy: only a returned {input} changes what runs.
          result = await hook({ ...ctx, input: structuredClone(input) });
        } catch (error) {
          return { kind: "failed", message: `a beforeToolCall hook failed: ${describe(error)}` };
        }
        if (result === undefined || result === null) continue;
        if (isPlainObject(result) && result.block === true) {
          const reason =
            typeof result.reason === "string" && result.reason !== "" ? result.reason : "blocked by policy";
          return { kind: "blocked", reason };
        }
        if (isPlainObject(result) && result.block === false && !("input" in result)) continue;
        if (isPlainObject(result) && "input" in result) {
          if (!isPlainObject(result.input)) {
            return {
              kind: "failed",
              message: "a beforeToolCall hook returned an input that is not an object",
            };
          }
          input = result.input;
          continue;
        }
        return {
          kind: "failed",
          message: "a beforeToolCall hook returned something other than {block} or {input}",
        };
      }
      return { kind: "proceed", input };
    },
    get beforeCount() {
      return before.length;
    },
    get afterCount() {
      return after.length;
    },
    async runAfter(ctx, onAfterHookError) {
      for (const { hook } of [...after]) {
        try {
          await hook(ctx);
        } catch (error) {
          onAfterHookError(error);
        }
      }
    },
  };
}
