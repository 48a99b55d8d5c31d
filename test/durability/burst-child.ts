// Child process of the durability test: opens the SQLite store in argv[2] and bursts knowledge
// (documents and artifacts numbered from argv[3])
// writes and artifact puts through the real capabilities, printing one line per acknowledged
// item (`K <id> <sha256>` / `A <handle> <index> <sha256>`) only after the call resolved. It runs
// until it is killed. stdout to a pipe is synchronous on Linux, so a printed line means the
// acknowledgement left the process.
import type { CallGrant } from "../../host/src/isolation/bridge/types.ts";
import { createArtifactsCapability } from "../../host/src/isolation/capabilities/artifacts.ts";
import { createKnowledgeCapability } from "../../host/src/isolation/capabilities/knowledge.ts";
import { openStore } from "../../host/src/state/store/index.ts";
import { AGENT, artifactBytes, CONVERSATION, docContent, docId, sha256 } from "./burst-fixtures.ts";

const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error("usage: burst-child.ts <dataDir> [firstIndex]");
const first = Number(process.argv[3] ?? 0);
const store = await openStore({ kind: "sqlite", dataDir });
const grant = {
  agent: AGENT,
  conversationId: CONVERSATION,
  namespace: "burst",
  tool: "writer",
  toolId: "burst:writer",
  knowledgeLevel: "write",
} as unknown as CallGrant;
const knowledge = createKnowledgeCapability({ store, limits: { maxDocsPerAgent: 1_000_000 } });
const artifacts = createArtifactsCapability({
  store,
  limits: {
    maxCountPerBinding: 1_000_000,
    maxBytesPerBinding: 2 ** 40,
    maxCountGlobal: 1_000_000,
    maxBytesGlobal: 2 ** 40,
  },
});

process.stdout.write("READY\n");
for (let i = first; ; i++) {
  const content = docContent(i);
  const r = (await knowledge.methods.write!(grant, [
    { id: docId(i), filename: `${docId(i)}.txt`, content },
  ])) as {
    ok: boolean;
  };
  if (!r.ok) throw new Error(`write ${i} refused: ${JSON.stringify(r)}`);
  process.stdout.write(`K ${docId(i)} ${sha256(content)}\n`);
  const bytes = artifactBytes(i);
  const handle = await artifacts.methods.put!(grant, [
    { buffer: bytes, filename: `a${i}.bin`, mime: "application/octet-stream" },
  ]);
  process.stdout.write(`A ${String(handle)} ${i} ${sha256(bytes)}\n`);
}
