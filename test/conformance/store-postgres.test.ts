// The store conformance suite against PostgreSQL in a fresh schema for this run (emptied
// before each test, dropped after the run); then the multi-replica behaviour: stores sharing
// one schema.
import { afterAll, describe, expect, it } from "vitest";
import { storeConformance } from "../../host/src/state/store/conformance.ts";
import { artifact, roomyCaps } from "../../host/src/state/store/conformance-artifacts.ts";
import { openStore } from "../../host/src/state/store/index.ts";
import {
  dropSchemas,
  freshSchemaName,
  truncateSchema,
} from "../../host/src/state/store/postgres/test-schema.ts";
import type { Store } from "../../host/src/state/store/types.ts";
import { describePg, PG_URL } from "../support/postgres.ts";

const schemas: string[] = [];
const open = (schema: string) => openStore({ kind: "postgres", url: PG_URL, schema, maxConnections: 4 });
const suiteSchema = freshSchemaName();
schemas.push(suiteSchema);
const fresh = async () => {
  const store = await open(suiteSchema);
  await truncateSchema(PG_URL, suiteSchema);
  return store;
};

describePg("PostgreSQL store conformance", () => {
  afterAll(() => dropSchemas(PG_URL, schemas));
  storeConformance(fresh);

  describe("replicas sharing one schema", () => {
    it("migrates once when several replicas start together", async () => {
      const schema = freshSchemaName();
      schemas.push(schema);
      const stores = await Promise.all([open(schema), open(schema), open(schema)]);
      await stores[0]!.ensureAgent("a");
      expect(await stores[2]!.getAgent("a")).not.toBeNull();
      await Promise.all(stores.map((s) => s.close()));
    });

    it("lets one replica put an artifact and exactly one of many racing takers on two replicas get it", async () => {
      const schema = freshSchemaName();
      schemas.push(schema);
      const [a, b]: Store[] = await Promise.all([open(schema), open(schema)]);
      try {
        for (let round = 0; round < 5; round++) {
          const handle = `h${round}`;
          await a!.putArtifact(artifact(handle), roomyCaps, 1_800_000_000_000);
          const takers = Array.from({ length: 8 }, (_, i) =>
            (i % 2 ? a! : b!).takeArtifact(handle, "a", "c", 1_800_000_000_000),
          );
          const got = (await Promise.all(takers)).filter((g) => g !== null);
          expect(got).toHaveLength(1);
          expect([...got[0]!.bytes]).toEqual([0, 1, 2, 255, 0]);
        }
      } finally {
        await Promise.all([a!.close(), b!.close()]);
      }
    });

    it("keeps the binding cap across replicas putting concurrently", async () => {
      const schema = freshSchemaName();
      schemas.push(schema);
      const [a, b]: Store[] = await Promise.all([open(schema), open(schema)]);
      try {
        const caps = { ...roomyCaps, maxCountPerBinding: 4 };
        const puts = Array.from({ length: 12 }, (_, i) =>
          (i % 2 ? a! : b!).putArtifact(artifact(`p${i}`), caps, 1_800_000_000_000),
        );
        expect((await Promise.all(puts)).filter((o) => o.ok)).toHaveLength(4);
      } finally {
        await Promise.all([a!.close(), b!.close()]);
      }
    });
  });
});
