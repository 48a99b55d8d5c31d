import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasCode } from "@airlock/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../state/store/index.ts";
import type { Store } from "../../state/store/types.ts";
import { installFixture } from "../pipeline/test-fixtures.ts";
import { listAgentTools, setToolsEnabled } from "./agent-tools.ts";
import { canonicalToolId, createCatalogue } from "./catalogue.ts";

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "airlock-catalogue-"));
  store = await openStore({ kind: "sqlite", dataDir: dir });
  await store.ensureAgent("ada");
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const weather = {
  namespace: "weather",
  tools: [
    { name: "forecast", code: "async () => 'sunny'", annotations: { readOnlyHint: true } },
    {
      name: "alerts",
      code: "async () => 'none'",
      requiredSecrets: [{ key: "api_key", type: "text" as const, optional: false, sensitive: true }],
    },
    { name: "read_file", code: "async () => 'x'", harness: "filesystem" },
  ],
};

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(hasCode(error, code)).toBe(true);
}

describe("catalogue", () => {
  it("lists active plugins' tools as namespace:tool and keeps harness tools out of the list", async () => {
    await installFixture(store, dir, weather);
    const catalogue = createCatalogue(store);
    await catalogue.reload();
    expect(catalogue.tools().map((t) => t.id)).toEqual(["weather:alerts", "weather:forecast"]);
    expect(catalogue.harnessGroups()).toEqual(["filesystem"]);
    expect(catalogue.harness("filesystem").map((t) => t.id)).toEqual(["weather:read_file"]);
    expect(catalogue.get("weather:read_file")?.tool.harness).toBe("filesystem");
  });

  it("accepts both the canonical and the wire form of a tool id", () => {
    expect(canonicalToolId("weather:forecast")).toBe("weather:forecast");
    expect(canonicalToolId("weather__forecast")).toBe("weather:forecast");
    expect(canonicalToolId("forecast")).toBeUndefined();
    expect(canonicalToolId("we_ather__x")).toBeUndefined();
  });

  it("serves only the active version after an upgrade and follows a rollback", async () => {
    await installFixture(store, dir, weather);
    await installFixture(store, dir, {
      namespace: "weather",
      version: "2.0.0",
      tools: [{ name: "forecast", code: "async () => 'rain'" }],
    });
    const catalogue = createCatalogue(store);
    await catalogue.reload();
    expect(catalogue.tools().map((t) => `${t.id}@${t.version}`)).toEqual(["weather:forecast@2.0.0"]);
    await store.rollbackPlugin("weather");
    await catalogue.reload();
    expect(catalogue.get("weather:forecast")?.version).toBe("1.0.0");
  });

  it("starts every new tool disabled for an agent and enables tools by either id form", async () => {
    await installFixture(store, dir, weather);
    const catalogue = createCatalogue(store);
    await catalogue.reload();
    expect((await listAgentTools(store, catalogue, "ada")).every((t) => !t.enabled && !t.served)).toBe(true);
    const views = await setToolsEnabled(store, catalogue, "ada", {
      weather__forecast: true,
      "weather:alerts": true,
    });
    const byId = new Map(views.map((v) => [v.id, v]));
    expect(byId.get("weather:forecast")).toMatchObject({ enabled: true, served: true, missingSecrets: [] });
    expect(byId.get("weather:alerts")).toMatchObject({
      enabled: true,
      served: false,
      missingSecrets: ["api_key"],
    });
  });

  it("refuses to enable an unknown or harness tool and writes nothing of the batch", async () => {
    await installFixture(store, dir, weather);
    const catalogue = createCatalogue(store);
    await catalogue.reload();
    await expectCode(
      setToolsEnabled(store, catalogue, "ada", { "weather:forecast": true, "weather:nope": true }),
      "AIRLOCK_CATALOGUE_TOOL_UNKNOWN",
    );
    await expectCode(
      setToolsEnabled(store, catalogue, "ada", { "weather:read_file": true }),
      "AIRLOCK_CATALOGUE_TOOL_UNKNOWN",
    );
    await expectCode(setToolsEnabled(store, catalogue, "nobody", {}), "AIRLOCK_AGENT_NOT_FOUND");
    expect(await store.listEnabledTools("ada")).toEqual([]);
  });

  it("reports an active plugin without an install record instead of serving a guess", async () => {
    await installFixture(store, dir, weather);
    await store.deleteInstalledPlugin("weather", "1.0.0");
    const catalogue = createCatalogue(store);
    const problems = await catalogue.reload();
    expect(problems.map((p) => p.code)).toEqual(["AIRLOCK_CATALOGUE_RECORD_MISSING"]);
    expect(catalogue.tools()).toEqual([]);
  });
});
