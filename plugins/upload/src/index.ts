// The `upload` plugin: takes a file another plugin handed over through ctx.artifacts (by
// handle) and delivers it, either to the declared file service with ctx.fetch or into the
// agent's knowledge base (text files only); or uploads a file the user attached (ctx.attachments).
// Invariants: the artifact is taken once (a second take answers null, and the model is told
// the handle is spent or unknown without saying which); the upload token travels only as
// ctx.secrets.ref; the destination endpoint is the operator's choice among declared hosts.
import { definePlugin, defineTool, type FetchUse } from "@airlock/sdk";
import { z } from "zod";
import { fromBase64 } from "./base64.ts";
import { toKnowledge, toService, uploadEndpoint, uploadToken } from "./deliver.ts";

/** What both tools may fetch: a POST to the file service (hosted or local). */
const SERVICE_POST: FetchUse[] = [
  { host: "files.dropzone.dev", methods: ["POST"] },
  { host: "127.0.0.1", methods: ["POST"] },
];

export const uploadArtifact = defineTool({
  name: "uploadArtifact",
  description:
    "Upload a file produced by another tool (give its artifact handle) to the file service, or save a text file to the knowledge base.",
  category: "files",
  requiredSecrets: [uploadToken, uploadEndpoint],
  annotations: { title: "Upload an artifact", readOnlyHint: false, openWorldHint: true },
  uses: { artifacts: ["take"], knowledge: "write", fetch: SERVICE_POST },
  presentation: { label: "Upload file", icon: "upload", group: "files" },
  parameters: z.object({
    handle: z.string().min(1).describe("The artifact handle another tool returned."),
    destination: z.enum(["service", "knowledge"]).nullable().describe("'service' (default) or 'knowledge'."),
  }),
  execute: async (input, ctx) => {
    const file = await ctx.artifacts.take(input.handle);
    if (file === null) {
      return {
        success: false,
        error: "No file for that handle: it is unknown, expired or already used. Render the file again.",
      };
    }
    return input.destination === "knowledge" ? toKnowledge(ctx, file) : toService(ctx, file);
  },
});

export const uploadAttachment = defineTool({
  name: "uploadAttachment",
  description: "Upload a file the user attached to their message (by file name) to the file service.",
  category: "files",
  requiredSecrets: [uploadToken, uploadEndpoint],
  annotations: { title: "Upload an attachment", readOnlyHint: false, openWorldHint: true },
  uses: { fetch: SERVICE_POST },
  presentation: { label: "Upload attachment", icon: "paperclip", group: "files" },
  parameters: z.object({ filename: z.string().min(1).describe("The attachment's file name.") }),
  execute: async (input, ctx) => {
    const attachment = ctx.attachments.find((a) => a.filename === input.filename);
    if (attachment === undefined) {
      const names = ctx.attachments.map((a) => a.filename).join(", ") || "none";
      return { success: false, error: `No attachment is named "${input.filename}" (attached: ${names}).` };
    }
    const bytes = attachment.data === undefined ? null : fromBase64(attachment.data);
    if (bytes === null)
      return { success: false, error: `The bytes of ${input.filename} were not sent inline.` };
    return toService(ctx, { buffer: bytes, filename: attachment.filename, mime: attachment.mime });
  },
});

export default definePlugin({
  namespace: "upload",
  version: "1.0.0",
  engine: "^1.0.0",
  description: "Uploads files handed over by other plugins to a file service or the knowledge base.",
  knowledge: "write",
  egress: [
    { host: "files.dropzone.dev", secrets: ["upload_token"] },
    { host: "127.0.0.1", schemes: ["http"], ports: [17913], secrets: ["upload_token"] },
  ],
  tools: [uploadArtifact, uploadAttachment],
});
