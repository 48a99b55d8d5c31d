// `--store URL` / AIRLOCK_STORE_URL on the `airlock` commands: a postgres:// URL makes a
// command act on the shared PostgreSQL state instead of the data directory's SQLite file.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { describePg, PG_URL } from "../../../../test/support/postgres.ts";
import { dropSchemas, freshSchemaName } from "../../state/store/postgres/test-schema.ts";
import { parseOptions, storeOption } from "./args.ts";
import { runCli } from "./main.ts";
import { HOST_OPTIONS } from "./open-host.ts";
import type { CliIO } from "./types.ts";

function io(env: Record<string, string>, cwd: string, sink: { out: string; err: string }): CliIO {
  return {
    stdout: (t) => {
      sink.out += t;
    },
    stderr: (t) => {
      sink.err += t;
    },
    env: {
      AIRLOCK_SANDBOX: "in-process",
      AIRLOCK_MASTER_KEY: Buffer.alloc(32, 7).toString("base64"),
      ...env,
    },
    cwd,
  };
}

describe("--store parsing", () => {
  const parse = (args: string[], env: Record<string, string> = {}) =>
    storeOption(parseOptions(args, HOST_OPTIONS), io(env, "/", { out: "", err: "" }));

  test("selects PostgreSQL for postgres:// and postgresql:// and takes ?schema= out of the URL", () => {
    expect(parse(["--store", "postgres://u@db:5432/airlock?schema=tenant_a"])).toEqual({
      kind: "postgres",
      url: "postgres://u@db:5432/airlock",
      schema: "tenant_a",
    });
    expect(parse([], { AIRLOCK_STORE_URL: "postgresql://db/airlock" })).toEqual({
      kind: "postgres",
      url: "postgresql://db/airlock",
    });
  });

  test("prefers --store over AIRLOCK_STORE_URL and leaves SQLite as the default", () => {
    expect(parse(["--store", "postgres://a/x"], { AIRLOCK_STORE_URL: "postgres://b/y" })).toMatchObject({
      url: "postgres://a/x",
    });
    expect(parse([])).toBeUndefined();
  });

  test("refuses another scheme or a non-URL with a usage error naming what is accepted", () => {
    for (const bad of ["mysql://db/x", "not a url"]) {
      expect(() => parse(["--store", bad])).toThrow(expect.objectContaining({ code: "AIRLOCK_CLI_USAGE" }));
    }
    expect(() => parse(["--store", "mysql://db/x"])).toThrow(/postgres:\/\//);
  });
});

describePg("airlock commands with --store postgres://", () => {
  const schema = freshSchemaName();
  let dirA: string;
  let dirB: string;
  beforeAll(async () => {
    dirA = await mkdtemp(join(tmpdir(), "airlock-store-a-"));
    dirB = await mkdtemp(join(tmpdir(), "airlock-store-b-"));
  });
  afterAll(async () => {
    await dropSchemas(PG_URL, [schema]);
    await rm(dirA, { recursive: true, force: true });
    await rm(dirB, { recursive: true, force: true });
  });

  test("an agent created with --store from one data dir is listed from another through the env variable", async () => {
    const url = `${PG_URL}?schema=${schema}`;
    const a = { out: "", err: "" };
    expect(
      await runCli(
        ["agents", "create", "shared-bot", "--store", url],
        io({ AIRLOCK_DATA_DIR: dirA }, dirA, a),
      ),
    ).toBe(0);
    const b = { out: "", err: "" };
    expect(
      await runCli(
        ["agents", "list", "--json"],
        io({ AIRLOCK_DATA_DIR: dirB, AIRLOCK_STORE_URL: url }, dirB, b),
      ),
    ).toBe(0);
    expect(JSON.parse(b.out)).toEqual([expect.objectContaining({ slug: "shared-bot" })]);
    // Without --store, dirB's own SQLite store knows nothing of it.
    const c = { out: "", err: "" };
    expect(await runCli(["agents", "list", "--json"], io({ AIRLOCK_DATA_DIR: dirB }, dirB, c))).toBe(0);
    expect(JSON.parse(c.out)).toEqual([]);
  });
});
