// The `notes` plugin: the agent's notes, kept in its knowledge base (ctx.knowledge).
// Contract: reads need level `read`; writes need `write` and touch only documents this plugin
// wrote (the host attributes the writer from the tool id); every refusal comes back to the
// model as a `{success:false, error}` that says what to do next.
import { definePlugin, defineTool } from "@airlock/sdk";
import { z } from "zod";
import { filenameFor, isFailure, knowledgeOf, mutationResult } from "./access.ts";

const presentation = { icon: "notebook", group: "notes" } as const;

export const searchNotes = defineTool({
  name: "searchNotes",
  description: "Search the agent's notes and knowledge base; returns matching snippets with document ids.",
  category: "knowledge",
  annotations: { title: "Search notes", readOnlyHint: true },
  uses: { knowledge: "read" },
  presentation: { ...presentation, label: "Search notes" },
  inputExamples: [{ label: "keyword", input: { query: "quarterly report", limit: null } }],
  parameters: z.object({
    query: z.string().min(1).describe("Words to search for."),
    limit: z.number().int().min(1).max(50).nullable().describe("Max results, defaults to 10."),
  }),
  execute: async (input, ctx) => {
    const kb = knowledgeOf(ctx);
    if (isFailure(kb)) return kb;
    const hits = await kb.search(input.query, { limit: input.limit ?? 10 });
    return { success: true, result: { hits } };
  },
});

export const readNote = defineTool({
  name: "readNote",
  description: "Read one note or knowledge document by id.",
  category: "knowledge",
  annotations: { title: "Read a note", readOnlyHint: true },
  uses: { knowledge: "read" },
  presentation: { ...presentation, label: "Read note" },
  parameters: z.object({ id: z.string().min(1).describe("The document id, from searchNotes or listNotes.") }),
  execute: async (input, ctx) => {
    const kb = knowledgeOf(ctx);
    if (isFailure(kb)) return kb;
    const doc = await kb.get(input.id);
    if (doc === null) return { success: false, error: `No note has id "${input.id}". Use searchNotes.` };
    return { success: true, result: doc };
  },
});

export const writeNote = defineTool({
  name: "writeNote",
  description:
    "Create a note, replace a note this plugin wrote (give its id), or append to one (mode 'append').",
  category: "knowledge",
  annotations: { title: "Write a note", readOnlyHint: false, destructiveHint: false },
  uses: { knowledge: "write" },
  presentation: { ...presentation, label: "Write note" },
  inputExamples: [
    { label: "new note", input: { id: null, title: "Meeting 3 March", content: "Agreed on X.", mode: null } },
  ],
  parameters: z.object({
    id: z.string().nullable().describe("Id of a note to replace or append to; null creates a new note."),
    title: z.string().min(1).max(200).describe("The note's title (becomes its filename)."),
    content: z.string().describe("The note's text (Markdown)."),
    mode: z.enum(["replace", "append"]).nullable().describe("With an id: 'replace' (default) or 'append'."),
  }),
  execute: async (input, ctx) => {
    const kb = knowledgeOf(ctx);
    if (isFailure(kb)) return kb;
    if (input.id !== null && input.mode === "append") {
      return mutationResult(await kb.append(input.id, `\n${input.content}`), "appended");
    }
    const doc = { filename: filenameFor(input.title), content: input.content, mime: "text/markdown" };
    const outcome = await kb.write(input.id === null ? doc : { ...doc, id: input.id });
    return mutationResult(outcome, input.id === null ? "created" : "replaced");
  },
});

export const listNotes = defineTool({
  name: "listNotes",
  description: "List notes. By default only the notes this plugin wrote; set all to list every document.",
  category: "knowledge",
  annotations: { title: "List notes", readOnlyHint: true },
  uses: { knowledge: "read" },
  presentation: { ...presentation, label: "List notes" },
  parameters: z.object({
    all: z.boolean().nullable().describe("true lists every document, not only notes; defaults to false."),
    limit: z.number().int().min(1).max(200).nullable().describe("Max entries, defaults to 50."),
  }),
  execute: async (input, ctx) => {
    const kb = knowledgeOf(ctx);
    if (isFailure(kb)) return kb;
    const docs = await kb.list({ mine: input.all !== true, limit: input.limit ?? 50 });
    return {
      success: true,
      result: { notes: docs.map((d) => ({ id: d.id, filename: d.filename, size: d.size })) },
    };
  },
});

export default definePlugin({
  namespace: "notes",
  version: "1.0.0",
  engine: "^1.0.0",
  description: "Notes kept in the agent's knowledge base: search, read, write and list.",
  knowledge: "write",
  tools: [searchNotes, readNote, writeNote, listNotes],
});
