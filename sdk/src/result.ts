// The rule that turns whatever a tool's execute() returned into a ToolResult. The host applies
// it to the plain data copied out of the sandbox (plugin code is not trusted to apply it).
// Rules, in order:
//  1. A ToolResult (`{content: ContentPart[], isError?, structuredContent?}`) is kept as is,
//     once each part is checked to be a known content type.
//  2. `{success: false, error}` becomes `{content:[{type:"text", text: error}], isError: true}`.
//  3. `{success: true, result}` becomes the text of `result` (a string as is, else JSON).
//  4. A string becomes one text part; `undefined` and `null` become the text "(no result)"
//     (an empty content list tells a model nothing).
//  5. Any other JSON value becomes one text part holding its JSON, and when it is a plain
//     object it is also returned as `structuredContent`.
import type { ContentPart, ToolResult } from "./context.ts";

const KNOWN_PARTS = new Set(["text", "image", "audio", "resource_link", "resource"]);

function isContentPart(value: unknown): value is ContentPart {
  if (typeof value !== "object" || value === null) return false;
  const part = value as Record<string, unknown>;
  if (!KNOWN_PARTS.has(part.type as string)) return false;
  switch (part.type) {
    case "text":
      return typeof part.text === "string";
    case "image":
    case "audio":
      return typeof part.data === "string" && typeof part.mimeType === "string";
    case "resource_link":
      return typeof part.uri === "string" && typeof part.name === "string";
    default: {
      const r = part.resource as Record<string, unknown> | undefined;
      return (
        typeof r === "object" &&
        r !== null &&
        typeof r.uri === "string" &&
        (typeof r.text === "string" || typeof r.blob === "string")
      );
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Normalises a tool's return value to a ToolResult (see the rules in this file's header). */
export function normalizeToolResult(value: unknown): ToolResult {
  if (isPlainObject(value) && Array.isArray(value.content) && value.content.every(isContentPart)) {
    const result: ToolResult = { content: value.content };
    if (value.isError === true) result.isError = true;
    if (isPlainObject(value.structuredContent)) result.structuredContent = value.structuredContent;
    return result;
  }
  if (isPlainObject(value) && value.success === false) {
    const error = value.error === undefined ? "the tool reported a failure" : asText(value.error);
    return { content: [{ type: "text", text: error }], isError: true };
  }
  if (isPlainObject(value) && value.success === true && "result" in value) {
    const result: ToolResult = { content: [{ type: "text", text: asText(value.result) }] };
    if (isPlainObject(value.result)) result.structuredContent = value.result;
    return result;
  }
  if (value === undefined || value === null) return { content: [{ type: "text", text: "(no result)" }] };
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  const result: ToolResult = { content: [{ type: "text", text: asText(value) }] };
  if (isPlainObject(value)) result.structuredContent = value;
  return result;
}
