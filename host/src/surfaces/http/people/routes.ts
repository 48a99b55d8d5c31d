// The host's people pages, mounted on the admin server beside /mcp (not part of /admin, the
// operator console's):
// - GET/POST /approve/:id — a pending approval (approval-page.ts): the tool and its agent; an
//   operator signs in with an operator token, then sees the call's input and approves or denies
//   (with a reason). Where an MCP client is pointed when the agent's operator must decide
//   (URL-mode elicitation: while the call waits in the 2025 era, as an input_required round in
//   2026-07-28, whose retry reads the decision).
// - GET/POST /secrets/:ticket — the missing secrets of a call (secret-page.ts): the person enters
//   the values, which go to the host over this page only, and are stored encrypted like any secret.
// Invariants: every POST needs a form token this host sealed for the same approval or ticket,
// unexpired (tickets.ts), and, when the browser sends one, an Origin equal to this server's; no
// visit stores anything (no per-visit row an anonymous visitor could pile up); a secret page
// sets only keys the operator allows for the agent and that are still missing; no value typed is
// rendered back or logged; every refusal answers a page with its code and is audited (form.ts).

import type { Hono } from "hono";
import type { AirlockHost } from "../../../contracts/host.ts";
import type { ExtraPath } from "../openapi.ts";
import { approvalPage, approvalPost } from "./approval-page.ts";
import { secretPage, secretPost } from "./secret-page.ts";

export function mountPeoplePages(app: Hono, host: AirlockHost): void {
  app.get("/approve/:id", (c) => approvalPage(host, c));
  app.post("/approve/:id", (c) => approvalPost(host, c));
  app.get("/secrets/:ticket", (c) => secretPage(host, c));
  app.post("/secrets/:ticket", (c) => secretPost(host, c));
}

/** The pages in the admin API's OpenAPI document. */
export const PEOPLE_PAGES_OPENAPI_PATHS: ExtraPath[] = [
  {
    path: "/approve/{id}",
    param: "id",
    summary: "The approval page of a pending call (an operator decides with an operator token).",
  },
  {
    path: "/secrets/{ticket}",
    param: "ticket",
    summary: "The page where a person enters a call's missing secrets (only those the operator allows).",
  },
].map(({ path, param, summary }) => ({
  path,
  item: Object.fromEntries(
    ["get", "post"].map((method) => [
      method,
      {
        operationId: `peoplePage${path.split("/")[1] === "approve" ? "Approve" : "Secrets"}${method === "get" ? "Get" : "Post"}`,
        summary,
        tags: ["people pages"],
        "x-airlock-access": "public",
        parameters: [{ name: param, in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "An HTML page." },
          "403": {
            description:
              "A form token that is missing, expired or another page's; no live operator token; a secret not allowed.",
          },
          "404": { description: "Nothing pending under this id or ticket." },
        },
      },
    ]),
  ),
}));
