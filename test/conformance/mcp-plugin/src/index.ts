// The conformance plugin: the tools `@modelcontextprotocol/conformance` 0.1.16's server
// scenarios call, under the names and with the results the suite specifies, written with the
// SDK exactly as a third-party author would (imports by package name only, built with
// `airlock-plugin build`). test/conformance/mcp-conformance.test.ts serves it with
// `airlock-plugin dev --http` (bare names) and installs it into a host (`conformance__<tool>`).
// Invariants: every tool returns what the suite's scenario text asks for, no more; a tool a
// scenario wants but Airlock cannot express (sampling, a stream the tool closes mid-call) is
// absent, never faked — docs/mcp.md ("Conformance") lists those scenarios. The elicitation
// tools ask through ctx.elicit, like any plugin.
import { definePlugin, defineTool, type ElicitResult } from "@airlock/sdk";
import { z } from "zod";
import { RED_PIXEL_PNG, SILENT_WAV } from "./media.ts";

const none = z.object({});

// The suite's reference tools space their notifications ~50 ms apart; its checks are on their
// number, order and content, each sent before the result. These pause the same way, with the
// sandbox's bounded setTimeout (the call waits for it like any await).
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const simpleText = defineTool({
  name: "test_simple_text",
  description: "Returns a simple text response (MCP conformance: tools-call-simple-text).",
  annotations: { readOnlyHint: true },
  parameters: none,
  execute: () => ({ content: [{ type: "text", text: "This is a simple text response for testing." }] }),
});

const imageContent = defineTool({
  name: "test_image_content",
  description: "Returns a 1x1 red PNG as image content (MCP conformance: tools-call-image).",
  annotations: { readOnlyHint: true },
  parameters: none,
  execute: () => ({ content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }] }),
});

const audioContent = defineTool({
  name: "test_audio_content",
  description: "Returns a short silent WAV as audio content (MCP conformance: tools-call-audio).",
  annotations: { readOnlyHint: true },
  parameters: none,
  execute: () => ({ content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }] }),
});

const embeddedResource = defineTool({
  name: "test_embedded_resource",
  description: "Returns an embedded text resource (MCP conformance: tools-call-embedded-resource).",
  annotations: { readOnlyHint: true },
  parameters: none,
  execute: () => ({
    content: [
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ],
  }),
});

const multipleContentTypes = defineTool({
  name: "test_multiple_content_types",
  description:
    "Returns text, image and resource content together (MCP conformance: tools-call-mixed-content).",
  annotations: { readOnlyHint: true },
  parameters: none,
  execute: () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 }),
        },
      },
    ],
  }),
});

const withLogging = defineTool({
  name: "test_tool_with_logging",
  description: "Sends three info log messages ~50 ms apart (MCP conformance: tools-call-with-logging).",
  annotations: { readOnlyHint: true },
  parameters: none,
  execute: async (_input, ctx) => {
    await ctx.log("info", "Tool execution started");
    await pause(50);
    await ctx.log("info", "Tool processing data");
    await pause(50);
    await ctx.log("info", "Tool execution completed");
    return { content: [{ type: "text", text: "Tool with logging executed successfully" }] };
  },
});

const withProgress = defineTool({
  name: "test_tool_with_progress",
  description:
    "Reports progress 0, 50 and 100 of 100, ~50 ms apart (MCP conformance: tools-call-with-progress).",
  annotations: { readOnlyHint: true },
  parameters: none,
  execute: async (_input, ctx) => {
    await ctx.progress(0, 100);
    await pause(50);
    await ctx.progress(50, 100);
    await pause(50);
    await ctx.progress(100, 100);
    return { content: [{ type: "text", text: "Tool with progress executed successfully" }] };
  },
});

const errorHandling = defineTool({
  name: "test_error_handling",
  description: "Always fails, to test error results (MCP conformance: tools-call-error).",
  annotations: { readOnlyHint: true },
  parameters: none,
  execute: () => {
    throw new Error("This tool intentionally returns an error for testing");
  },
});

/** The suite's text for an elicitation's outcome; a client that cannot elicit gets an error. */
function outcome(prefix: string, r: ElicitResult) {
  if (r.action === "unsupported") {
    return {
      content: [{ type: "text" as const, text: "The client does not support elicitation." }],
      isError: true,
    };
  }
  const content = r.action === "accept" ? r.content : {};
  return {
    content: [
      { type: "text" as const, text: `${prefix}action=${r.action}, content=${JSON.stringify(content)}` },
    ],
  };
}

const elicitation = defineTool({
  name: "test_elicitation",
  description: "Asks the user for a username and an email (MCP conformance: tools-call-elicitation).",
  annotations: { readOnlyHint: true },
  parameters: z.object({ message: z.string().describe("The message to show the user.") }),
  execute: async (input, ctx) => {
    const r = await ctx.elicit({
      message: input.message,
      schema: {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        required: ["username", "email"],
      },
    });
    return outcome("User response: ", r);
  },
});

const elicitationDefaults = defineTool({
  name: "test_elicitation_sep1034_defaults",
  description:
    "Asks with a default for every primitive type (MCP conformance: elicitation-sep1034-defaults).",
  annotations: { readOnlyHint: true },
  parameters: none,
  execute: async (_input, ctx) =>
    outcome(
      "Elicitation completed: ",
      await ctx.elicit({
        message: "Please review and update the form fields with defaults",
        schema: {
          type: "object",
          properties: {
            name: { type: "string", description: "User name", default: "John Doe" },
            age: { type: "integer", description: "User age", default: 30 },
            score: { type: "number", description: "User score", default: 95.5 },
            status: {
              type: "string",
              description: "User status",
              enum: ["active", "inactive", "pending"],
              default: "active",
            },
            verified: { type: "boolean", description: "Verification status", default: true },
          },
        },
      }),
    ),
});

const elicitationEnums = defineTool({
  name: "test_elicitation_sep1330_enums",
  description: "Asks with the five enum forms (MCP conformance: elicitation-sep1330-enums).",
  annotations: { readOnlyHint: true },
  parameters: none,
  execute: async (_input, ctx) =>
    outcome(
      "Elicitation completed: ",
      await ctx.elicit({
        message: "Please select options from the enum fields",
        schema: {
          type: "object",
          properties: {
            untitledSingle: {
              type: "string",
              description: "Select one option",
              enum: ["option1", "option2", "option3"],
            },
            titledSingle: {
              type: "string",
              description: "Select one option with titles",
              oneOf: [
                { const: "value1", title: "First Option" },
                { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" },
              ],
            },
            legacyEnum: {
              type: "string",
              description: "Select one option (legacy)",
              enum: ["opt1", "opt2", "opt3"],
              enumNames: ["Option One", "Option Two", "Option Three"],
            },
            untitledMulti: {
              type: "array",
              description: "Select multiple options",
              minItems: 1,
              maxItems: 3,
              items: { type: "string", enum: ["option1", "option2", "option3"] },
            },
            titledMulti: {
              type: "array",
              description: "Select multiple options with titles",
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: "value1", title: "First Choice" },
                  { const: "value2", title: "Second Choice" },
                  { const: "value3", title: "Third Choice" },
                ],
              },
            },
          },
        },
      }),
    ),
});

// `address` carries an id, so the build emits it once under the schema's definitions and
// refers to it with $ref (the suite looks for `$defs.address` and `$schema` 2020-12).
const address = z
  .object({
    street: z.string().describe("Street and number."),
    city: z.string().describe("City."),
  })
  .meta({ id: "address" });

const jsonSchema202012 = defineTool({
  name: "json_schema_2020_12_tool",
  description: "Tool with JSON Schema 2020-12 features (MCP conformance: json-schema-2020-12).",
  annotations: { readOnlyHint: true },
  parameters: z.object({
    name: z.string().nullable().describe("A name."),
    address: address.nullable().describe("A postal address."),
  }),
  execute: (input) => ({ content: [{ type: "text", text: `received ${JSON.stringify(input)}` }] }),
});

export default definePlugin({
  namespace: "conformance",
  version: "1.0.0",
  engine: "^1.0.0",
  tools: [
    simpleText,
    imageContent,
    audioContent,
    embeddedResource,
    multipleContentTypes,
    withLogging,
    withProgress,
    errorHandling,
    jsonSchema202012,
    elicitation,
    elicitationDefaults,
    elicitationEnums,
  ],
});
