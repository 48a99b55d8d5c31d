// The `upload` plugin: takes a file another plugin handed over through ctx.artifacts (by
// handle) and delivers it, either to the declared file service with ctx.fetch or into the
// agent's knowledge base (text files only).
// Invariants: the artifact is taken once (a second take answers null, and the model is told
// the handle is spent or unknown without saying which); the upload token travels only as
// ctx.secrets.ref; the destination endpoint is the operator's choice among declared hosts.
import { definePlugin, defineTool, hasCode } from "@airlock/sdk";
import { z } from "zod";
import { decodeUtf8 } from "./utf8.ts";

export const ENDPOINTS = ["https://files.dropzone.dev", "http://127.0.0.1:47913"] as const;

export const uploadArtifact = defineTool({
  name: "uploadArtifact",
  description:
    "Upload a file produced by another tool (give its artifact handle) to the file service, or save a text file to the knowledge base.",
  category: "files",
  requiredSecrets: [
    { key: "upload_token", type: "text", label: "Dropzone token", description: "Sent as a bearer token." },
    {
      key: "upload_endpoint",
      type: "select",
      choices: [...ENDPOINTS],
      optional: true,
      label: "File service",
      description: "Where files go: the hosted service or a local one.",
    },
  ],
  annotations: { readOnlyHint: false, openWorldHint: true },
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
    if (input.destination === "knowledge") {
      if (!ctx.knowledge) return { success: false, error: "This agent has no knowledge base access." };
      const { text, valid } = decodeUtf8(file.buffer);
      if (!valid)
        return { success: false, error: `${file.filename} is binary; only text files go to knowledge.` };
      const out = await ctx.knowledge.write({ filename: file.filename, content: text, mime: file.mime });
      if (!out.ok) return { success: false, error: `The knowledge base refused the file (${out.reason}).` };
      return { success: true, result: { destination: "knowledge", id: out.id, filename: file.filename } };
    }
    const chosen = await ctx.secrets.get("upload_endpoint");
    const base = ENDPOINTS.find((e) => e === chosen) ?? ENDPOINTS[0];
    try {
      const res = await ctx.fetch(`${base}/v1/files?name=${encodeURIComponent(file.filename)}`, {
        method: "POST",
        headers: { authorization: ctx.secrets.ref("upload_token"), "content-type": file.mime },
        body: file.buffer,
      });
      const answer = await res.text();
      if (res.status < 200 || res.status > 299) {
        return { success: false, error: `The file service answered ${res.status}: ${answer.slice(0, 200)}` };
      }
      let url: unknown = null;
      try {
        url = (JSON.parse(answer) as { url?: unknown }).url ?? null;
      } catch (err) {
        await ctx.log("warning", `the file service's answer is not JSON: ${String(err)}`);
      }
      return {
        success: true,
        result: { destination: "service", filename: file.filename, bytes: file.buffer.length, url },
      };
    } catch (err) {
      return { success: false, error: `The upload failed (${hasCode(err) ? err.code : "network"}).` };
    }
  },
});

export default definePlugin({
  namespace: "upload",
  version: "1.0.0",
  engine: "^1.0.0",
  description: "Uploads files handed over by other plugins to a file service or the knowledge base.",
  egress: [
    { host: "files.dropzone.dev", secrets: ["upload_token"] },
    { host: "127.0.0.1", schemes: ["http"], ports: [47913], secrets: ["upload_token"] },
  ],
  tools: [uploadArtifact],
});
