// Skills as MCP prompts: `prompts/list` is the one-line list of the skills the agent has enabled
// (name, title, description), `prompts/get` the body of one of them with its reference files.
// Everything goes through the library API (host.listSkills / host.readSkill), so a skill the
// agent has not enabled is neither listed nor readable (AIRLOCK_SKILL_UNKNOWN as invalid params).
// The prompt name is the skill id with `:` written `__` (`<ns>__skill__<id>`), as tool names are.
import { hasCode } from "@airlock/sdk";
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import type { AirlockHost } from "../../contracts/host.ts";

const promptName = (id: string) => id.replaceAll(":", "__");
const skillIdOf = (name: string) => name.replaceAll("__", ":");

export function registerSkillPrompts(server: Server, host: AirlockHost, agent: string): void {
  server.setRequestHandler("prompts/list", async () => {
    const skills = (await host.listSkills(agent)).filter((s) => s.enabled);
    return {
      prompts: skills.map((s) => ({ name: promptName(s.id), title: s.name, description: s.description })),
    };
  });
  server.setRequestHandler("prompts/get", async (request) => {
    let doc: Awaited<ReturnType<AirlockHost["readSkill"]>>;
    try {
      doc = await host.readSkill(agent, skillIdOf(String(request.params.name)));
    } catch (error) {
      if (hasCode(error, "AIRLOCK_SKILL_UNKNOWN")) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
      }
      throw error;
    }
    const references = doc.references.map((r) => `\n\n--- ${r.path} ---\n${r.content}`).join("");
    return {
      description: doc.description,
      messages: [
        { role: "user" as const, content: { type: "text" as const, text: `${doc.body}${references}` } },
      ],
    };
  });
}
