// Skills shipped by a plugin, from the author's sources to an agent: `airlock-plugin build`
// validates skills/<id>/SKILL.md and lists each file with its sha512 in the manifest, the
// tarball installs through the real installer (which re-checks every hash), and the host serves
// the skill only to an agent that has it enabled. A malformed SKILL.md fails the build with
// AIRLOCK_SDK_SKILL_INVALID; a tampered hash fails parseManifest.
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseManifest } from "@airlock/sdk/manifest";
import { writePluginTarball } from "@airlock/sdk/package";
import { parseSkillMarkdown } from "@airlock/sdk/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlugin } from "../../sdk/src/build/build-plugin.ts";
import { packPlugin } from "../../sdk/src/build/pack.ts";
import { copyFixture, type FixtureCopy } from "../../sdk/test/support/fixtures.ts";
import { type RemoteHost, startRemoteHost } from "../support/remote-host.ts";

const SKILL = `---
name: Taking good notes
description: "How to search before appending, and how to name notes."
---
Search with searchNotes first; append only when nothing matches.
See naming.md for names.
`;

let copy: FixtureCopy;
let h: RemoteHost;

async function writeSkill(dir: string, id: string, text: string, extra: Record<string, string> = {}) {
  await mkdir(join(dir, "skills", id), { recursive: true });
  await writeFile(join(dir, "skills", id, "SKILL.md"), text);
  for (const [file, content] of Object.entries(extra))
    await writeFile(join(dir, "skills", id, file), content);
}

beforeAll(async () => {
  copy = await copyFixture("notes");
  h = await startRemoteHost();
}, 60_000);
afterAll(async () => {
  await h?.close();
  await copy?.remove();
});

describe("skills shipped by a plugin", () => {
  it("fail the build with AIRLOCK_SDK_SKILL_INVALID when malformed", async () => {
    await writeSkill(
      copy.dir,
      "broken",
      `---\nname: ${"n".repeat(65)}\ndescription: too long a name\n---\nbody\n`,
    );
    await expect(buildPlugin(copy.dir)).rejects.toMatchObject({ code: "AIRLOCK_SDK_SKILL_INVALID" });
    await writeSkill(copy.dir, "broken", "no front matter at all\n");
    await expect(buildPlugin(copy.dir)).rejects.toMatchObject({ code: "AIRLOCK_SDK_SKILL_INVALID" });
    await writeSkill(copy.dir, "broken", `---\nname: ok\ndescription: ${"d".repeat(1025)}\n---\nbody\n`);
    await expect(buildPlugin(copy.dir)).rejects.toMatchObject({ code: "AIRLOCK_SDK_SKILL_INVALID" });
    await rm(join(copy.dir, "skills", "broken"), { recursive: true });
    expect(() => parseSkillMarkdown("x", "---\nname: a\n---\nbody")).toThrow(/description/);
  });

  it("are listed in the manifest with their hashes, verified at install, and served per agent", async () => {
    await writeSkill(copy.dir, "note-taking", SKILL, { "naming.md": "Name notes YYYY-MM-DD-topic.\n" });
    const { manifest } = await buildPlugin(copy.dir);
    expect(manifest.skills).toEqual([
      expect.objectContaining({
        id: "note-taking",
        name: "Taking good notes",
        description: "How to search before appending, and how to name notes.",
        integrity: expect.stringMatching(/^sha512-/),
        references: [
          expect.objectContaining({ path: "naming.md", integrity: expect.stringMatching(/^sha512-/) }),
        ],
      }),
    ]);
    // A tarball whose skill was altered after the build is refused by the installer, nothing written.
    const onDisk = JSON.parse(await readFile(join(copy.dir, "dist/airlock.json"), "utf8"));
    const tampered = structuredClone(onDisk);
    tampered.skills[0].source = SKILL.replace("Search", "Exfiltrate");
    expect(parseManifest(tampered).skills?.[0]?.source).toContain("Exfiltrate"); // the shape is fine
    const forged = writePluginTarball({
      packageJson: await readFile(join(copy.dir, "dist/package.json")),
      manifest: JSON.stringify(tampered),
      bundle: await readFile(join(copy.dir, "dist/index.js")),
    });
    await expect(
      h.host.plugins.installTarball(forged, "forged", { allowUnsigned: true }),
    ).rejects.toMatchObject({
      code: "AIRLOCK_MANIFEST_INVALID",
    });
    expect(await h.host.plugins.list()).toEqual([]);

    const packed = await packPlugin(copy.dir);
    await h.host.plugins.installTarball(await readFile(packed.file), "test", { allowUnsigned: true });
    const id = "fixture-notes:skill:note-taking";
    expect(await h.host.listSkills("alpha")).toEqual([
      {
        id,
        namespace: "fixture-notes",
        name: "Taking good notes",
        description: "How to search before appending, and how to name notes.",
        enabled: false,
      },
    ]);
    await expect(h.host.readSkill("alpha", id)).rejects.toMatchObject({ code: "AIRLOCK_SKILL_UNKNOWN" });
    await h.host.setSkillsEnabled("alpha", { [id]: true });
    const doc = await h.host.readSkill("alpha", id);
    expect(doc.body).toBe(
      "Search with searchNotes first; append only when nothing matches.\nSee naming.md for names.",
    );
    expect(doc.references).toEqual([{ path: "naming.md", content: "Name notes YYYY-MM-DD-topic.\n" }]);
    // Invisible to an agent that does not have it enabled.
    expect((await h.host.listSkills("beta")).filter((s) => s.enabled)).toEqual([]);
    await expect(h.host.readSkill("beta", id)).rejects.toMatchObject({ code: "AIRLOCK_SKILL_UNKNOWN" });
    await expect(
      h.host.setSkillsEnabled("alpha", { "fixture-notes:skill:nope": true }),
    ).rejects.toMatchObject({
      code: "AIRLOCK_SKILL_INVALID_CHANGE",
    });
    // Through Airlock's MCP endpoint: a prompt for the agent that has it, nothing for the other.
    const alpha = await h.mcp("alpha");
    expect(await alpha.prompts()).toEqual(["fixture-notes__skill__note-taking"]);
    expect(await alpha.prompt("fixture-notes__skill__note-taking")).toContain(
      "Search with searchNotes first",
    );
    await alpha.close();
    const beta = await h.mcp("beta");
    expect(await beta.prompts()).toEqual([]);
    await expect(beta.prompt("fixture-notes__skill__note-taking")).rejects.toThrow(/no skill/);
    await beta.close();
    // Enabling a skill enables no tool.
    expect((await h.host.listAgentTools("alpha")).some((t) => t.enabled)).toBe(false);
  });

  it("are harness tools and HTTP routes for the agent that has them, and for no other", async () => {
    const id = "fixture-notes:skill:note-taking";
    expect((await h.host.listSkills("alpha")).find((s) => s.id === id)?.enabled).toBe(true);
    const alpha = await h.mcp("alpha");
    expect(await alpha.names()).toEqual(["airlock__skill", "airlock__skills"]);
    const list = await alpha.call("airlock__skills", {});
    expect(list.isError).toBeUndefined();
    expect(list.content).toEqual([
      {
        type: "text",
        text: `${id}: Taking good notes — How to search before appending, and how to name notes.`,
      },
    ]);
    const read = await alpha.call("airlock__skill", { id });
    const text = String(read.content[0]?.text);
    expect(text).toContain("Search with searchNotes first");
    expect(text).toContain("--- naming.md ---\nName notes YYYY-MM-DD-topic.");
    const unknown = await alpha.call("airlock__skill", { id: "fixture-notes:skill:nope" });
    expect(unknown.isError).toBe(true);
    expect(unknown._meta?.["airlock/errorCode"]).toBe("AIRLOCK_SKILL_UNKNOWN");
    const bad = await alpha.call("airlock__skill", { id, extra: 1 });
    expect(bad._meta?.["airlock/errorCode"]).toBe("AIRLOCK_SKILL_INPUT_INVALID");
    await alpha.close();
    const [audited] = await h.host.queryAudit({ kind: "tool", plugin: "airlock", tool: "skill", limit: 1 });
    expect(audited).toMatchObject({ agent: "alpha", error: "AIRLOCK_SKILL_INPUT_INVALID", allowed: false });
    // Not in a run restricted to other tools; in one that names the group.
    const restricted = await h.host.startRun({ agent: "alpha", tools: ["fixture-notes:searchNotes"] });
    expect(restricted.tools().map((t) => t.id)).toEqual([]);
    const grouped = await h.host.startRun({ agent: "alpha", groups: ["skills"] });
    expect(grouped.tools().map((t) => t.id)).toEqual(["airlock:skills", "airlock:skill"]);

    // beta has no skill enabled: neither tool is listed, and a call by name reaches nothing.
    const beta = await h.mcp("beta");
    expect(await beta.names()).toEqual([]);
    const refused = await beta.call("airlock__skill", { id });
    expect(refused._meta?.["airlock/errorCode"]).toBe("AIRLOCK_MCP_UNKNOWN_TOOL");
    expect(JSON.stringify(refused)).not.toContain("searchNotes first");
    await beta.close();

    // Over HTTP with the agent's own token.
    const get = (agent: string, path: string, token = h.tokens[agent]) =>
      fetch(`${h.server.url}/api/instances/${agent}/skills${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
    const listed = await get("alpha", "");
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { skills: Array<{ id: string }> }).skills.map((s) => s.id)).toEqual([
      id,
    ]);
    const body = await get("alpha", `/${encodeURIComponent(id)}`);
    expect(body.status).toBe(200);
    expect(await body.json()).toMatchObject({ id, references: [{ path: "naming.md" }] });
    expect(await (await get("beta", "")).json()).toEqual({ skills: [] });
    const hidden = await get("beta", `/${encodeURIComponent(id)}`);
    expect(hidden.status).toBe(404);
    const hiddenText = await hidden.text();
    expect(JSON.parse(hiddenText).error.code).toBe("AIRLOCK_SKILL_UNKNOWN");
    expect(hiddenText).not.toContain("searchNotes first");
    // Another agent's slug is, to an agent token, an unknown agent (auth.ts).
    expect((await get("alpha", "", h.tokens.beta)).status).toBe(404);
    // The operator sees every skill with its flag, and changes it.
    const all = await get("beta", "", h.tokens.operator);
    expect(await all.json()).toEqual({ skills: [expect.objectContaining({ id, enabled: false })] });
    const patched = await fetch(`${h.server.url}/api/instances/alpha/skills`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${h.tokens.operator}`, "content-type": "application/json" },
      body: JSON.stringify({ enabled: { [id]: false } }),
    });
    expect(patched.status).toBe(200);
    const off = await h.mcp("alpha");
    expect(await off.names()).toEqual([]);
    await off.close();
    expect((await fetch(`${h.server.url}/healthz`)).status).toBe(200);
  });
});
