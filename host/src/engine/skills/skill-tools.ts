// Skills as host tools, for callers that have no MCP prompts: a run of an agent with at least
// one skill enabled lists `airlock:skills` (one line per enabled skill) and `airlock:skill` (the
// body of one, with its reference files), answered here through the pipeline's `host` executor
// (pipeline/executors/host.ts), so their calls pass the same stages as any tool (span, events,
// hooks, audit). Like harness tools they are not catalogue entries, are not enabled one by one
// (the skills are), and are never callable from run_code.
// Invariants: an agent with no skill enabled is served neither tool; a run restricted to named
// tools or groups gets them only when it names them (the ids, or the group "skills"); the
// one-line list is the run-start snapshot (up-front registration) and a body is read through
// readSkill, which re-checks the enablement, so a skill disabled since is AIRLOCK_SKILL_UNKNOWN;
// the call's audit row (kind "tool", plugin "airlock") names the skill read; a failure is an
// answer with errorCode, never a throw.
import type { ToolResult } from "@airlock/sdk";
import { hasCode } from "@airlock/sdk/errors";
import type { ModelTool, RunOptions } from "../../contracts/host.ts";
import type { Store } from "../../state/store/types.ts";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { HostAnswer, HostTool } from "../pipeline/call-types.ts";
import { listSkills, readSkill, type SkillView } from "./skills.ts";

export const SKILLS_TOOL_ID = "airlock:skills";
export const SKILL_TOOL_ID = "airlock:skill";
/** The group a restricted run names to keep both tools (`groups: ["skills"]`). */
export const SKILLS_GROUP = "skills";

export interface SkillToolsDeps {
  store: Store;
  catalogue: Catalogue;
}

type SkillToolId = typeof SKILLS_TOOL_ID | typeof SKILL_TOOL_ID;

/** `airlock:skills` or `airlock__skills` (and the same for `skill`) → the tool's id. */
export function skillToolOf(name: string): SkillToolId | undefined {
  const match = typeof name === "string" ? /^airlock(?::|__)(skills?)$/.exec(name) : null;
  if (match === null) return undefined;
  return match[1] === "skills" ? SKILLS_TOOL_ID : SKILL_TOOL_ID;
}

export const isSkillTool = (id: string): boolean => id === SKILLS_TOOL_ID || id === SKILL_TOOL_ID;

function skillTools(): ModelTool[] {
  return [
    {
      id: SKILLS_TOOL_ID,
      wireName: "airlock__skills",
      description:
        "Lists your skills, instructions on using your tools well: one line each, `id: name — description`. Read one with airlock__skill before the task it is about.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      annotations: { title: "List skills", readOnlyHint: true },
    },
    {
      id: SKILL_TOOL_ID,
      wireName: "airlock__skill",
      description:
        "Reads one of your skills by id (from airlock__skills): its instructions, then each of its reference files.",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string", description: "The skill's id, `<ns>:skill:<id>`." } },
        required: ["id"],
        additionalProperties: false,
      },
      annotations: { title: "Read a skill", readOnlyHint: true },
    },
  ];
}

function textResult(text: string, isError = false): ToolResult {
  return isError
    ? { content: [{ type: "text", text }], isError: true }
    : { content: [{ type: "text", text }] };
}

function wanted(options: RunOptions): boolean {
  if (options.tools === undefined && options.groups === undefined) return true;
  const ids = new Set((options.tools ?? []).map((t) => skillToolOf(t) ?? t));
  return ids.has(SKILLS_TOOL_ID) || ids.has(SKILL_TOOL_ID) || (options.groups ?? []).includes(SKILLS_GROUP);
}

type Report = { result: ToolResult; errorCode?: string };

async function answer(
  deps: SkillToolsDeps,
  agent: string,
  listed: readonly SkillView[],
  id: SkillToolId,
  args: Record<string, unknown>,
): Promise<Report> {
  if (id === SKILLS_TOOL_ID) {
    if (Object.keys(args).length > 0) {
      return {
        result: textResult("airlock__skills takes no input: {}", true),
        errorCode: "AIRLOCK_SKILL_INPUT_INVALID",
      };
    }
    return { result: textResult(listed.map((s) => `${s.id}: ${s.name} — ${s.description}`).join("\n")) };
  }
  const extra = Object.keys(args).filter((k) => k !== "id");
  if (typeof args.id !== "string" || extra.length > 0) {
    return {
      result: textResult(
        `airlock__skill takes {"id": string} (an id from airlock__skills)${extra.length > 0 ? `; unknown: ${extra.join(", ")}` : ""}`,
        true,
      ),
      errorCode: "AIRLOCK_SKILL_INPUT_INVALID",
    };
  }
  try {
    const doc = await readSkill(deps.store, deps.catalogue, agent, args.id);
    const references = doc.references.map((r) => `\n\n--- ${r.path} ---\n${r.content}`).join("");
    return { result: textResult(`# ${doc.name}\n\n${doc.body}${references}`) };
  } catch (error) {
    if (hasCode(error, "AIRLOCK_SKILL_UNKNOWN")) {
      const known = listed.map((s) => s.id).join(", ");
      return {
        result: textResult(`${error.message}; your skills: ${known || "none"}`, true),
        errorCode: "AIRLOCK_SKILL_UNKNOWN",
      };
    }
    throw error;
  }
}

/** The two skill tools for a run of `agent`, or none when the agent has no skill enabled. */
export async function skillHostTools(
  deps: SkillToolsDeps,
  agent: string,
  options: RunOptions,
): Promise<HostTool[]> {
  if (!wanted(options)) return [];
  const listed = (await listSkills(deps.store, deps.catalogue, agent)).filter((s) => s.enabled);
  if (listed.length === 0) return [];
  return skillTools().map((model) => {
    const id = model.id as SkillToolId;
    return {
      model,
      async answer(input): Promise<HostAnswer> {
        const report = await answer(deps, agent, listed, id, input);
        const skill = id === SKILL_TOOL_ID ? String(input.id ?? "").slice(0, 200) : null;
        return { ...report, details: { skill } };
      },
    };
  });
}
