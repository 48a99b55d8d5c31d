// ctx.models on the host side: `complete(request)` sends an OpenAI-compatible chat completion
// through the model connection the operator granted to this (agent, plugin), after admitting
// the call against the grant's budget for the period.
// Invariants: the provider key is read from the vault here and sent only to the connection's
// base URL (through the egress address rules, no redirects); it never reaches the isolate, an
// error, an audit entry or a log; a call past the budget is refused before any provider
// request (AIRLOCK_MODEL_BUDGET_EXHAUSTED); every call — admitted, refused or failed — is
// audited once by this module (models.complete: connection, model, tokens; never the messages).
import { hasCode } from "@airlock/sdk/errors";
import type { Vault } from "../../state/secrets/vault.ts";
import type { BudgetPeriod } from "../../state/store/broker-types.ts";
import type { AuditInput, Store } from "../../state/store/types.ts";
import type { CallGrant, Capability } from "../bridge/types.ts";
import { capabilityError } from "./errors.ts";
import type { ProviderAnswer, ProviderPost } from "./oauth-port.ts";

export const MODELS_AUDIT_ACTION = "models.complete";
const MAX_MESSAGES = 64;
const MAX_PROMPT_CHARS = 200_000;
const MAX_OUTPUT_TOKENS = 32_768;

export interface ModelRequestChecked {
  messages: Array<{ role: "system" | "user" | "assistant"; content: string }>;
  maxTokens?: number;
  temperature?: number;
}

function invalid(message: string): never {
  throw capabilityError("AIRLOCK_MODEL_REQUEST_INVALID", message);
}

export function checkModelRequest(raw: unknown): ModelRequestChecked {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    invalid("complete() takes {messages, maxTokens?, temperature?}");
  const r = raw as Record<string, unknown>;
  for (const k of Object.keys(r))
    if (!["messages", "maxTokens", "temperature"].includes(k))
      invalid(`"${k.slice(0, 40)}" is not a request field`);
  const messages = r.messages;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_MESSAGES)
    invalid(`messages must list 1 to ${MAX_MESSAGES} messages`);
  let chars = 0;
  const checked = messages.map((m: unknown, i) => {
    const role = (m as { role?: unknown } | null)?.role;
    const content = (m as { content?: unknown } | null)?.content;
    if (role !== "system" && role !== "user" && role !== "assistant")
      invalid(`messages[${i}].role must be "system", "user" or "assistant"`);
    if (typeof content !== "string") invalid(`messages[${i}].content must be a string`);
    chars += content.length;
    return { role: role as ModelRequestChecked["messages"][number]["role"], content };
  });
  if (chars > MAX_PROMPT_CHARS) invalid(`the messages hold ${chars} characters; at most ${MAX_PROMPT_CHARS}`);
  const out: ModelRequestChecked = { messages: checked };
  if (r.maxTokens !== undefined) {
    if (
      !Number.isInteger(r.maxTokens) ||
      (r.maxTokens as number) < 1 ||
      (r.maxTokens as number) > MAX_OUTPUT_TOKENS
    )
      invalid(`maxTokens must be an integer from 1 to ${MAX_OUTPUT_TOKENS}`);
    out.maxTokens = r.maxTokens as number;
  }
  if (r.temperature !== undefined) {
    if (typeof r.temperature !== "number" || !(r.temperature >= 0 && r.temperature <= 2))
      invalid("temperature must be a number from 0 to 2");
    out.temperature = r.temperature;
  }
  return out;
}

/** The usage row a call counts into: `2026-12-01` (day), `2026-12` (month) or `total`, in UTC. */
export function periodKey(period: BudgetPeriod, now: number): string {
  const iso = new Date(now).toISOString();
  return period === "day" ? iso.slice(0, 10) : period === "month" ? iso.slice(0, 7) : "total";
}

function completionOf(json: unknown) {
  const j = json as {
    model?: unknown;
    choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>;
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  } | null;
  const choice = Array.isArray(j?.choices) ? j?.choices[0] : undefined;
  const text = choice?.message?.content;
  if (typeof text !== "string") return null;
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
  return {
    text,
    model: typeof j?.model === "string" ? j.model : "",
    finishReason: typeof choice?.finish_reason === "string" ? choice.finish_reason : null,
    usage: { inputTokens: num(j?.usage?.prompt_tokens), outputTokens: num(j?.usage?.completion_tokens) },
  };
}

export interface ModelsCapabilityOptions {
  store: Store;
  vault: Vault;
  /** The host's POST to the connection's base URL (oauth-port.ts; engine/oauth/endpoint.ts). */
  post: ProviderPost;
  audit: (entry: AuditInput) => Promise<void>;
  clock: () => number;
}

export function createModelsCapability(options: ModelsCapabilityOptions): Capability {
  const { store, vault } = options;

  async function audit(grant: CallGrant, fields: Partial<AuditInput>, details: Record<string, unknown>) {
    await options.audit({
      agent: grant.agent,
      plugin: grant.namespace,
      tool: grant.tool,
      conversationId: grant.conversationId,
      kind: "capability",
      action: MODELS_AUDIT_ACTION,
      allowed: true,
      success: true,
      error: null,
      durationMs: null,
      ...fields,
      details: { tool: grant.toolId, ...details },
    });
  }

  async function complete(grant: CallGrant, args: readonly unknown[]) {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const refuse = async (
      error: ReturnType<typeof capabilityError>,
      details: Record<string, unknown> = {},
    ) => {
      await audit(grant, { allowed: false, success: false, error: error.code, durationMs: ms() }, details);
      throw error;
    };
    if (grant.manifest.models === undefined) {
      return refuse(
        capabilityError(
          "AIRLOCK_MODEL_NOT_DECLARED",
          `plugin ${grant.namespace} does not declare that it calls models`,
        ),
      );
    }
    let request: ModelRequestChecked;
    try {
      request = checkModelRequest(args[0]);
    } catch (error) {
      await audit(grant, { success: false, error: "AIRLOCK_MODEL_REQUEST_INVALID", durationMs: ms() }, {});
      throw error;
    }
    const granted = await store.getModelGrant(grant.agent, grant.namespace);
    const connection = granted === null ? null : await store.getModelConnection(granted.connection);
    if (granted === null || connection === null) {
      return refuse(
        capabilityError(
          "AIRLOCK_MODEL_NOT_GRANTED",
          `the operator has granted plugin ${grant.namespace} no model connection for agent ${grant.agent}`,
        ),
      );
    }
    const where = { connection: connection.name, model: connection.model };
    const period = periodKey(granted.period, options.clock());
    if (
      !(await store.reserveModelCall(
        grant.agent,
        grant.namespace,
        period,
        granted.maxCalls,
        granted.maxTokens,
      ))
    ) {
      const budget =
        granted.maxCalls !== null ? `${granted.maxCalls} calls` : `${granted.maxTokens ?? 0} tokens`;
      return refuse(
        capabilityError(
          "AIRLOCK_MODEL_BUDGET_EXHAUSTED",
          `plugin ${grant.namespace} has used its model budget for agent ${grant.agent} (${budget} per ${granted.period}); no model call was made`,
          { limit: granted.maxCalls ?? granted.maxTokens, period: granted.period },
        ),
        { ...where, period },
      );
    }
    const body = {
      model: connection.model,
      messages: request.messages,
      ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    };
    let answer: ProviderAnswer;
    try {
      answer = await options.post(
        `${connection.baseUrl.replace(/\/+$/, "")}/chat/completions`,
        { json: body },
        { authorization: `Bearer ${vault.decrypt(connection.keyCiphertext)}` },
      );
    } catch (error) {
      const reason = hasCode(error) ? error.code : "network";
      await audit(
        grant,
        { success: false, error: "AIRLOCK_MODEL_PROVIDER_FAILED", durationMs: ms() },
        { ...where, period, reason },
      );
      throw capabilityError(
        "AIRLOCK_MODEL_PROVIDER_FAILED",
        `model connection ${connection.name} could not be reached`,
        {
          connection: connection.name,
          reason,
        },
      );
    }
    const completion = answer.status === 200 ? completionOf(answer.json) : null;
    if (completion === null) {
      await audit(
        grant,
        { success: false, error: "AIRLOCK_MODEL_PROVIDER_FAILED", durationMs: ms() },
        { ...where, period, status: answer.status },
      );
      throw capabilityError(
        "AIRLOCK_MODEL_PROVIDER_FAILED",
        `model connection ${connection.name} answered ${answer.status} without a completion`,
        { connection: connection.name, status: answer.status },
      );
    }
    const tokens = completion.usage.inputTokens + completion.usage.outputTokens;
    await store.addModelTokens(grant.agent, grant.namespace, period, tokens);
    await audit(grant, { durationMs: ms() }, { ...where, period, ...completion.usage });
    return completion;
  }

  return { name: "models", methods: { complete }, auditedByBridge: () => false };
}
