import { describe, expect, it } from "vitest";
import { mapListing, type RemoteTool } from "./definitions.ts";

const codeOf = (f: () => unknown): unknown => {
  try {
    f();
    return "accepted";
  } catch (err) {
    return (err as { code?: unknown }).code;
  }
};
const tool = (extra: Partial<RemoteTool>): RemoteTool =>
  ({ name: "lookup", description: "Looks up.", inputSchema: { type: "object" }, ...extra }) as RemoteTool;

describe("a remote server's listing", () => {
  it("refuses a definition holding a lone surrogate anywhere with AIRLOCK_REMOTE_TOOL_INVALID", () => {
    expect(codeOf(() => mapListing("remote", [tool({ title: "Look \ud800 up" })]))).toBe(
      "AIRLOCK_REMOTE_TOOL_INVALID",
    );
    expect(codeOf(() => mapListing("remote", [tool({ description: "\udc00" })]))).toBe(
      "AIRLOCK_REMOTE_TOOL_INVALID",
    );
    const schema = { type: "object", properties: { "\ud800": { type: "string" } } };
    expect(codeOf(() => mapListing("remote", [tool({ inputSchema: schema } as never)]))).toBe(
      "AIRLOCK_REMOTE_TOOL_INVALID",
    );
  });

  it("refuses a title a person cannot read (bidi override, zero-width joiner), and takes a plain one", () => {
    for (const title of ["\u202Epu kooL", "Look\u200Dup"]) {
      expect(codeOf(() => mapListing("remote", [tool({ title })]))).toBe("AIRLOCK_REMOTE_TOOL_INVALID");
    }
    expect(codeOf(() => mapListing("remote", [tool({ title: "Look up 😀" })]))).toBe("accepted");
  });
});
