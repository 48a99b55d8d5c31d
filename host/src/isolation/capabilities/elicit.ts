// ctx.elicit on the host side: the `elicit` capability (method `ask`) of the bridge. It checks
// the plugin's form, asks through the call's channel (the MCP client), checks the answer
// against the form and audits it itself: the action, the field names, and the values of the
// fields not marked sensitive.
// Invariants: a form that is not flat is refused (AIRLOCK_ELICIT_INVALID) before anything is
// sent; a call without a channel answers { action: "unsupported" } at once, never waits; the
// plugin sees accepted content only after it matched the form; an answer that does not match
// is refused (AIRLOCK_ELICIT_CONTENT_INVALID); every outcome is audited (one row per ask).
// What a valid form is belongs to the engine (engine/people/form-schema.ts): the composition
// root hands its checks in as `forms`, so this layer imports nothing from above.

import type { ElicitResult } from "../../contracts/people.ts";
import type { AuditInput } from "../../state/store/types.ts";
import type { Capability } from "../bridge/types.ts";

/** A form that passed `check`: what is sent, and its fields by name. */
/** Accepted content, as the plugin receives it. */
type Content = Extract<ElicitResult, { action: "accept" }>["content"];

export interface CheckedElicitForm {
  message: string;
  wire: unknown;
  fields: ReadonlyMap<string, unknown>;
}

/** The form checks this capability applies (engine/people/form-schema.ts provides them). */
export interface ElicitForms<F extends CheckedElicitForm> {
  /** The plugin's form, checked; throws AIRLOCK_ELICIT_INVALID. */
  checkForm(request: unknown): F;
  /** The person's answer, checked against the form; throws AIRLOCK_ELICIT_CONTENT_INVALID. */
  checkContent(form: F, content: unknown): Content;
  /** The answer as audited (values of sensitive fields left out). */
  auditView(form: F, content: Content): Record<string, unknown>;
}

export function createElicitCapability<F extends CheckedElicitForm>(options: {
  audit: (entry: AuditInput) => Promise<void>;
  forms: ElicitForms<F>;
}): Capability {
  const { checkForm, checkContent, auditView } = options.forms;
  return {
    name: "elicit",
    // One row per ask, written here with the answer's audit view.
    auditedByBridge: () => false,
    methods: {
      async ask(grant, args) {
        const started = performance.now();
        const row = (fields: Partial<AuditInput>) =>
          options.audit({
            agent: grant.agent,
            plugin: grant.namespace,
            tool: grant.tool,
            conversationId: grant.conversationId,
            kind: "capability",
            action: "elicit.ask",
            allowed: true,
            success: true,
            error: null,
            durationMs: Math.round(performance.now() - started),
            details: null,
            ...fields,
          });
        let form: F;
        try {
          form = checkForm(args[0]);
        } catch (error) {
          await row({ allowed: false, success: false, error: "AIRLOCK_ELICIT_INVALID" });
          throw error;
        }
        const fields = [...form.fields.keys()];
        if (grant.elicit === undefined) {
          await row({ success: false, details: { action: "unsupported", fields } });
          return { action: "unsupported" } satisfies ElicitResult;
        }
        let answer: ElicitResult;
        try {
          answer = await grant.elicit({ message: form.message, schema: form.wire as never }, grant.signal);
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          // The 2026-07-28 round ends here (input_required): the answer comes with the retry.
          await row({
            success: false,
            error: typeof code === "string" ? code : "AIRLOCK_BRIDGE_FAILED",
            details: { fields },
          });
          throw error;
        }
        if (answer.action !== "accept") {
          await row({ success: answer.action !== "unsupported", details: { action: answer.action, fields } });
          return { action: answer.action } satisfies ElicitResult;
        }
        let content: Content;
        try {
          content = checkContent(form, answer.content ?? {});
        } catch (error) {
          await row({
            success: false,
            error: "AIRLOCK_ELICIT_CONTENT_INVALID",
            details: { action: "accept", fields },
          });
          throw error;
        }
        await row({ details: { action: "accept", fields, content: auditView(form, content) } });
        return { action: "accept", content } satisfies ElicitResult;
      },
    },
  };
}
