// Tool calls and approvals. A call runs through the host's full pipeline (enablement, secrets,
// hooks, approval, validation, sandbox) and answers the ToolCallOutcome: a failing tool is a
// 200 with `result.isError` and `errorCode`, never an HTTP error.
// Invariants: an agent token calls only its own agent's tools and can never skip an approval
// (`autoApprove` needs an operator token); a call is cancelled when the client disconnects.
import { hasCode } from "@airlock/sdk/errors";
import type { CallOptions, RunOptions } from "../../../contracts/host.ts";
import { apiError } from "../errors.ts";
import { defineRoute, type RouteSpec } from "../route-table.ts";
import {
  approvalParams,
  approvalsQuery,
  approvalsResponse,
  callBody,
  callResponse,
  decideBody,
  decideResponse,
  slugParams,
} from "../schemas.ts";
import { canonicalToolId } from "./catalogue.ts";

export const callRoutes: RouteSpec[] = [
  defineRoute({
    method: "post",
    path: "/api/agents/:slug/calls",
    operationId: "callTool",
    summary:
      "Calls one of the agent's served tools (`ns:tool` or `ns__tool`). Answers the outcome; a tool " +
      "failure is `result.isError` with `errorCode`. Waits for an approval when the tool is not read-only.",
    tag: "calls",
    access: "agent-self",
    params: slugParams,
    body: callBody,
    responses: {
      200: { description: "The call's outcome, as the model would see it.", schema: callResponse },
    },
    async handler({ host, params, body, token, c }) {
      if (body.autoApprove === true && token?.role !== "operator") {
        throw apiError("AIRLOCK_API_FORBIDDEN", "autoApprove needs an operator token");
      }
      const options: CallOptions & RunOptions = { agent: params.slug, signal: c.req.raw.signal };
      if (body.conversationId !== undefined) options.conversationId = body.conversationId;
      if (body.conversation !== undefined) {
        options.conversation = body.conversation.map((m) =>
          m.at === undefined
            ? { role: m.role, content: m.content }
            : { role: m.role, content: m.content, at: m.at },
        );
      }
      if (body.attachments !== undefined) {
        options.attachments = body.attachments.map((a) =>
          a.data === undefined
            ? { filename: a.filename, mime: a.mime, size: a.size }
            : { filename: a.filename, mime: a.mime, size: a.size, data: a.data },
        );
      }
      if (body.autoApprove === true) options.autoApprove = true;
      // the end user the call is for: checked and audited by the pipeline, used by ctx.oauth
      if (body.subject !== undefined) options.subject = body.subject;
      const traceparent = c.req.header("traceparent");
      if (traceparent !== undefined) {
        const tracestate = c.req.header("tracestate");
        options.trace = tracestate === undefined ? { traceparent } : { traceparent, tracestate };
      }
      const outcome = await host.callTool(params.slug, canonicalToolId(body.tool), body.input, options);
      return { json: outcome };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/approvals",
    operationId: "listApprovals",
    summary: "Tool calls waiting for an operator's decision (optionally for one agent).",
    tag: "approvals",
    access: "operator",
    query: approvalsQuery,
    responses: { 200: { description: "Pending approvals, oldest first.", schema: approvalsResponse } },
    async handler({ host, query }) {
      return { json: { approvals: await host.listApprovals(query.agent) } };
    },
  }),
  defineRoute({
    method: "post",
    path: "/api/approvals/:id",
    operationId: "decideApproval",
    summary: "Approves or denies a pending call; a denial reaches the model as the tool's result.",
    tag: "approvals",
    access: "operator",
    params: approvalParams,
    body: decideBody,
    responses: { 200: { description: "The decision taken.", schema: decideResponse } },
    async handler({ host, params, body }) {
      const decision =
        body.reason === undefined
          ? { approve: body.approve }
          : { approve: body.approve, reason: body.reason };
      // Any replica decides any replica's approval (the row is shared); unknown: 404; decided
      // first elsewhere: 409 ALREADY_DECIDED; its call gone: 410 CALL_GONE (both pass through).
      await host.decideApproval(params.id, decision).catch((error: unknown) => {
        if (!hasCode(error, "AIRLOCK_APPROVAL_NOT_FOUND")) throw error;
        throw apiError(
          "AIRLOCK_API_UNKNOWN_APPROVAL",
          `no pending approval has id ${JSON.stringify(params.id)}`,
        );
      });
      return { json: { id: params.id, approved: body.approve } };
    },
  }),
];
