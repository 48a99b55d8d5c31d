// Two hosts sharing one PostgreSQL store (and one plugins volume and master key): what one
// replica installs, enables and sets is what the other serves, without a restart.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { samplePluginTarball } from "@airlock/sdk/package";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describePg, PG_URL } from "../../../../test/support/postgres.ts";
import type { AirlockHost } from "../../contracts/host.ts";
import { createHost } from "../../host.ts";
import { dropSchemas, freshSchemaName } from "../../state/store/postgres/test-schema.ts";

describePg("replicas on a shared PostgreSQL store", () => {
  const schema = freshSchemaName();
  let dir: string;
  let a: AirlockHost;
  let b: AirlockHost;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "airlock-replicas-"));
    const options = {
      dataDir: dir,
      store: { kind: "postgres" as const, url: PG_URL, schema },
      sandbox: { mode: "in-process" as const },
      masterKey: randomBytes(32).toString("base64"),
      onInternalError: () => undefined,
    };
    a = await createHost(options);
    b = await createHost(options);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await dropSchemas(PG_URL, [schema]);
    await rm(dir, { recursive: true, force: true });
  });

  it("serves on one replica what another installed, enabled and configured", async () => {
    const tarball = samplePluginTarball({ namespace: "shared", version: "1.0.0", secrets: ["api_key"] });
    await a.plugins.installTarball(tarball, "/tmp/shared.tgz", { allowUnsigned: true });
    await a.createAgent("ada");
    await a.setToolsEnabled("ada", { "shared:echo": true });
    expect((await b.listAgentTools("ada"))[0]).toMatchObject({ enabled: true, missingSecrets: ["api_key"] });
    await a.setSecrets("ada", { api_key: "0123456789abcdef" });
    const out = await b.callTool("ada", "shared:echo", { text: "hi" });
    expect(out.errorCode).toBeUndefined();
    expect(out.result.content).toEqual([{ type: "text", text: '{"text":"hi"}' }]);
    const audit = await a.queryAudit({ agent: "ada", kind: "tool" });
    expect(audit.map((e) => e.details?.callId)).toContain(out.callId);
  });

  it("a token revoked on one replica is refused by the other, which had it cached", async () => {
    await a.createAgent("bob");
    const { id, token } = await a.issueToken("agent", "bob", "replicas");
    expect(await b.authenticate(token)).toMatchObject({ id }); // now in b's token cache
    await a.revokeToken(id);
    // b learns it from a's "tokens" wake-up (one NOTIFY round trip), not from its cache aging out:
    // the bound below is under TOKEN_CACHE_MAX_AGE_MS only to show that; a correctness check.
    const until = Date.now() + 900;
    while ((await b.authenticate(token)) !== null && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await b.authenticate(token)).toBeNull();
  });
});
