// docs/remote.md cannot drift from the code: its `sh` block runs exactly as printed through the
// real `airlock` dispatcher on a fresh data directory, against a real MCP server on the port the
// page names (the server changes one description before `airlock remote review`), and its
// error table lists every AIRLOCK_REMOTE_* code with its status.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REMOTE_ERRORS } from "../../host/src/engine/remote/errors.ts";
import { COMMANDS } from "../../host/src/surfaces/cli/commands/index.ts";
import { runCli } from "../../host/src/surfaces/cli/main.ts";
import { type RemoteFixture, startRemoteFixture } from "../support/remote-mcp-fixture.ts";

const DOC = readFileSync(resolve(import.meta.dirname, "../../docs/remote.md"), "utf8");
const LINES = [...DOC.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
  (m[1] as string).split("\n").filter((l) => l.trim() !== ""),
);

let fx: RemoteFixture;
let dir: string;

beforeAll(async () => {
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(DOC)?.[1]);
  fx = await startRemoteFixture({ port });
  dir = mkdtempSync(join(tmpdir(), "airlock-remote-docs-"));
});
afterAll(async () => {
  await fx.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("docs/remote.md", () => {
  it("runs its commands as printed", async () => {
    expect(LINES.length).toBeGreaterThan(5);
    for (const line of LINES) {
      const argv = line.split(/\s+/);
      expect(argv[0]).toBe("airlock");
      if (line.startsWith("airlock remote review"))
        fx.driftDescription = "A description changed on the server.";
      const out: string[] = [];
      const err: string[] = [];
      const io = {
        stdout: (t: string) => void out.push(t),
        stderr: (t: string) => void err.push(t),
        env: {},
        cwd: dir,
      };
      const code = await runCli([...argv.slice(1), "--data-dir", join(dir, "data")], io, COMMANDS);
      expect({ line, code, err: code === 0 ? "" : err.join("") }).toEqual({ line, code: 0, err: "" });
    }
  });

  it("lists every AIRLOCK_REMOTE_* code with its status", () => {
    const missing = Object.entries(REMOTE_ERRORS)
      .filter(([code, spec]) => !DOC.includes(`| \`${code}\` | ${spec.status} |`))
      .map(([code]) => code);
    expect(missing).toEqual([]);
  });
});
