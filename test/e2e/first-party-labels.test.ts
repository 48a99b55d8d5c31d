// The first-party plugins (plugins/*) declare per-tool grants (`uses`), and what every listing
// serves of them is derived from those grants (host/src/engine/catalogue/served-tool.ts): each
// plugin is composed from its sources as `airlock-plugin build` does (which also checks that no
// tool's uses exceeds its plugin's declaration), and each tool's derived annotations are checked
// against the table below. `render` is the one left in the legacy mode on purpose: its tools
// claim `readOnlyHint: true` but put artifacts, which the derivation counts as a write, so
// declaring its grants would make both tools ask for approval (docs/behaviour.md).
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { servedLabels } from "../../host/src/engine/catalogue/served-tool.ts";
import { composePlugin } from "../../sdk/src/build/build-plugin.ts";

const PLUGINS = fileURLToPath(new URL("../../plugins/", import.meta.url));

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: false };
const RW = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };
const expected: Record<string, Record<string, Record<string, unknown>>> = {
  notes: {
    searchNotes: { ...RO, openWorldHint: false, title: "Search notes" },
    readNote: { ...RO, openWorldHint: false, title: "Read a note" },
    writeNote: { ...RW, openWorldHint: false, title: "Write a note" },
    listNotes: { ...RO, openWorldHint: false, title: "List notes" },
  },
  weather: { currentWeather: { ...RO, openWorldHint: true, title: "Current weather" } },
  "http-json": {
    getJson: { ...RO, openWorldHint: true, title: "Get JSON" },
    postJson: { ...RW, openWorldHint: true, title: "Post JSON" },
  },
  upload: {
    uploadArtifact: { ...RW, openWorldHint: true, title: "Upload an artifact" },
    uploadAttachment: { ...RW, openWorldHint: true, title: "Upload an attachment" },
  },
  room: {
    post_event: { ...RW, openWorldHint: false },
    list_open_events: { ...RO, openWorldHint: false },
    mark_events_completed: { ...RW, openWorldHint: false },
  },
};

describe("first-party plugins' per-tool grants", () => {
  it.each(Object.keys(expected))(
    "%s declares uses on every tool; the derived annotations are the table's",
    async (dir) => {
      const { manifest } = await composePlugin(join(PLUGINS, dir));
      const served = Object.fromEntries(
        manifest.tools.map((tool) => {
          const labels = servedLabels(tool, manifest);
          expect(labels.grants, `${dir}:${tool.name} declares uses`).not.toBeNull();
          return [tool.name, labels.annotations];
        }),
      );
      expect(served).toEqual(expected[dir]);
      // every claim the authors wrote is one the grants bear out: nothing overridden
      for (const tool of manifest.tools)
        expect(servedLabels(tool, manifest).annotations).toMatchObject(tool.annotations);
    },
  );

  it("render stays in the legacy mode: its authors' annotations, grants not declared", async () => {
    const { manifest } = await composePlugin(join(PLUGINS, "render"));
    for (const tool of manifest.tools) {
      expect(tool.uses).toBeUndefined();
      expect(servedLabels(tool, manifest)).toEqual({ annotations: tool.annotations, grants: null });
    }
  });
});
