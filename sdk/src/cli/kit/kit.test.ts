import { describe, expect, it } from "vitest";
import { sdkError } from "../../error-codes.ts";
import { parseCommandArgs } from "./parse.ts";
import { type ProgramIO, runProgram } from "./program.ts";
import { errorLine } from "./report.ts";
import { closest, editDistance } from "./suggest.ts";

function io(): ProgramIO & { out: string; err: string } {
  const state = {
    out: "",
    err: "",
    env: {},
    stdout: (t: string) => {
      state.out += t;
    },
    stderr: (t: string) => {
      state.err += t;
    },
  };
  return state;
}

const program = {
  name: "tool",
  version: "1.0.0",
  about: "a test program",
  codes: { usage: "AIRLOCK_T_USAGE", unknownCommand: "AIRLOCK_T_UNKNOWN_COMMAND" },
  commands: [
    { path: ["start"], summary: "start", help: "Usage: tool start [--port N]\n", run: async () => 0 },
    {
      path: ["agents", "list"],
      summary: "list",
      help: "Usage: tool agents list <slug>\n",
      run: async (args: readonly string[]) => {
        const parsed = parseCommandArgs(args, { port: { type: "string" } }, 1, (m) =>
          sdkError("AIRLOCK_SDK_USAGE", m),
        );
        if (parsed.positionals[0] === undefined) throw sdkError("AIRLOCK_SDK_USAGE", "missing <slug>");
        throw new Error("boom\nsecond line");
      },
    },
    {
      path: ["agents", "create"],
      summary: "create",
      help: "Usage: tool agents create\n",
      run: async () => 0,
    },
  ],
};

describe("cli-kit", () => {
  it("counts a swapped pair as one edit and suggests only near candidates", () => {
    expect(editDistance("strat", "start")).toBe(1);
    expect(closest("strat", ["serve", "start", "mcp"])).toBe("start");
    expect(closest("exampel", ["example", "other"])).toBe("example");
    expect(closest("zzzzzz", ["start", "serve"])).toBeUndefined();
  });

  it("folds a message onto one error line", () => {
    expect(errorLine("AIRLOCK_X", "first\n  second")).toBe("error: AIRLOCK_X: first second\n");
  });

  it("answers a mistyped command with one line naming the nearest, exit 2", async () => {
    const out = io();
    expect(await runProgram(program, ["strat"], out)).toBe(2);
    expect(out.err).toBe(
      "error: AIRLOCK_T_UNKNOWN_COMMAND: no command `tool strat` — did you mean `tool start`?\n",
    );
    const sub = io();
    expect(await runProgram(program, ["agents", "lsit"], sub)).toBe(2);
    expect(sub.err).toContain("did you mean `tool agents list`?");
  });

  it("prints a group's short list for a group without a subcommand: stderr and 2, or stdout and 0 with --help", async () => {
    const bare = io();
    expect(await runProgram(program, ["agents"], bare)).toBe(2);
    expect(bare.err).toContain("tool agents create");
    expect(bare.err).not.toContain("tool start");
    const help = io();
    expect(await runProgram(program, ["agents", "--help"], help)).toBe(0);
    expect(help.out).toContain("tool agents list");
  });

  it("names the nearest option and the usage line in usage errors; a bug is AIRLOCK_INTERNAL without a stack", async () => {
    const option = io();
    expect(await runProgram(program, ["agents", "list", "--prot", "1"], option)).toBe(2);
    expect(option.err).toBe("error: AIRLOCK_SDK_USAGE: unknown option --prot — did you mean --port?\n");
    const missing = io();
    expect(await runProgram(program, ["agents", "list"], missing)).toBe(2);
    expect(missing.err).toBe("error: AIRLOCK_SDK_USAGE: missing <slug> — usage: tool agents list <slug>\n");
    const bug = io();
    expect(await runProgram(program, ["agents", "list", "x"], bug)).toBe(1);
    expect(bug.err.split("\n")).toHaveLength(2);
    expect(bug.err).toMatch(/^error: AIRLOCK_INTERNAL: boom second line — /);
  });
});
