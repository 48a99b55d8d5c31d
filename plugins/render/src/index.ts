// The `render` plugin: turns data into real files (a CSV table, a PNG bar chart) and hands the
// bytes to other plugins through ctx.artifacts, returning the handle for the model to pass on.
// Its chart UI (ui/chart.html, MCP Apps) draws renderChart's values in clients that render UIs.
// Invariants: pure JS only (the bundle runs in an isolate: no node built-ins, no TextEncoder,
// no btoa); a refused `put` (too large, limit reached) becomes a `{success:false}` result.
import { definePlugin, defineTool, hasCode } from "@airlock/sdk";
import { z } from "zod";
import { base64 } from "./base64.ts";
import { barChart } from "./chart.ts";
import { toCsv } from "./csv.ts";
import { encodePng } from "./png.ts";

function safeName(name: string | null, fallback: string, ext: string): string {
  const base = (name ?? fallback).replace(/[^A-Za-z0-9._-]+/g, "-").replace(/\.[A-Za-z0-9]+$/, "");
  return `${base || fallback}.${ext}`;
}

function refused(err: unknown): { success: false; error: string } {
  const code = hasCode(err) ? err.code : "unknown";
  return { success: false, error: `The host refused to store the file (${code}). Try less data.` };
}

export const renderCsv = defineTool({
  name: "renderCsv",
  description:
    "Render a table as a CSV file. Returns an artifact handle another tool (e.g. upload) can take once.",
  category: "files",
  annotations: { title: "Render CSV", readOnlyHint: true },
  presentation: { label: "Render CSV", icon: "table", group: "files" },
  inputExamples: [
    {
      label: "two rows",
      input: {
        columns: ["city", "temp"],
        rows: [
          ["Oslo", "3"],
          ["Rome", "18"],
        ],
        filename: null,
      },
    },
  ],
  parameters: z.object({
    columns: z.array(z.string()).min(1).max(100).describe("Column headers."),
    rows: z.array(z.array(z.string())).max(10_000).describe("Rows of cell values, in column order."),
    filename: z.string().max(100).nullable().describe("File name without extension; defaults to 'table'."),
  }),
  execute: async (input, ctx) => {
    const csv = toCsv(input.columns, input.rows);
    const filename = safeName(input.filename, "table", "csv");
    try {
      const handle = await ctx.artifacts.put({ buffer: csv, filename, mime: "text/csv" });
      return { success: true, result: { handle, filename, mime: "text/csv", rows: input.rows.length } };
    } catch (err) {
      return refused(err);
    }
  },
});

export const renderChart = defineTool({
  name: "renderChart",
  description:
    "Render numbers as a PNG bar chart. Returns the image and an artifact handle another tool can take once.",
  category: "files",
  annotations: { title: "Render a chart", readOnlyHint: true },
  presentation: { label: "Render chart", icon: "chart-bar", group: "files" },
  ui: "chart",
  parameters: z.object({
    values: z.array(z.number()).min(1).max(200).describe("One bar per value."),
    width: z.number().int().min(16).max(800).nullable().describe("Pixels, defaults to 320."),
    height: z.number().int().min(16).max(600).nullable().describe("Pixels, defaults to 200."),
    filename: z.string().max(100).nullable().describe("File name without extension; defaults to 'chart'."),
  }),
  execute: async (input, ctx) => {
    const canvas = barChart(input.values, input.width ?? 320, input.height ?? 200);
    const png = encodePng(canvas.width, canvas.height, canvas.pixels);
    const filename = safeName(input.filename, "chart", "png");
    let handle: string;
    try {
      handle = await ctx.artifacts.put({ buffer: png, filename, mime: "image/png" });
    } catch (err) {
      return refused(err);
    }
    const meta = { handle, filename, mime: "image/png", bytes: png.length };
    return {
      content: [
        { type: "text", text: JSON.stringify(meta) },
        { type: "image", data: base64(png), mimeType: "image/png" },
      ],
      structuredContent: meta,
    };
  },
});

export default definePlugin({
  namespace: "render",
  version: "1.0.0",
  engine: "^1.0.0",
  description: "Renders tables to CSV and numbers to PNG charts, handed on as artifacts.",
  tools: [renderCsv, renderChart],
  // MCP Apps: clients that render UIs show renderChart's values as bars (ui/chart.html, docs/apps.md)
  ui: [
    {
      name: "chart",
      file: "ui/chart.html",
      title: "Bar chart",
      description: "The values of a renderChart call as bars, with a button that renders them again.",
      prefersBorder: true,
    },
  ],
});
