// Where the upload plugin's files go: the file service (ctx.fetch, the token injected by the
// host from ctx.secrets.ref) or the knowledge base (valid UTF-8 text only). Both answer
// `{success, result|error}` for the model; neither throws for an upstream or policy refusal.
import { hasCode, type SecretDeclaration, type ToolContext } from "@airlock/sdk";

// The loopback endpoint (local use, tests) is on a port below Linux's ephemeral range
// (32768–60999), so a server bound to it never collides with an outgoing connection's port.
export const ENDPOINTS = ["https://files.dropzone.dev", "http://127.0.0.1:17913"] as const;

export const uploadToken: SecretDeclaration = {
  key: "upload_token",
  type: "text",
  label: "Dropzone token",
  description: "Sent as a bearer token.",
};

export const uploadEndpoint: SecretDeclaration = {
  key: "upload_endpoint",
  type: "select",
  choices: [...ENDPOINTS],
  optional: true,
  label: "File service",
  description: "Where files go: the hosted service or a local one.",
};

export interface FileBytes {
  buffer: Uint8Array;
  filename: string;
  mime: string;
}

type Outcome = { success: true; result: Record<string, unknown> } | { success: false; error: string };

/** The text of UTF-8 bytes, or null when they are not valid UTF-8 (how text is told from binary). */
export function textOf(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

export async function toKnowledge(ctx: ToolContext, file: FileBytes): Promise<Outcome> {
  if (!ctx.knowledge) return { success: false, error: "This agent has no knowledge base access." };
  const text = textOf(file.buffer);
  if (text === null)
    return { success: false, error: `${file.filename} is binary; only text files go to knowledge.` };
  const out = await ctx.knowledge.write({ filename: file.filename, content: text, mime: file.mime });
  if (!out.ok) return { success: false, error: `The knowledge base refused the file (${out.reason}).` };
  return { success: true, result: { destination: "knowledge", id: out.id, filename: file.filename } };
}

export async function toService(ctx: ToolContext, file: FileBytes): Promise<Outcome> {
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
}
