// ctx.knowledge on the host side: the agent's knowledge base at the level the call was granted.
// Levels nest read < write < manage. write creates documents and changes only those its writer
// wrote (else not_owned); manage changes and deletes any, and a manage edit keeps the original
// writer. Rules and defaults: ./knowledge-rules.ts.
// Invariants: the agent comes from the grant and the writer from the grant's tool id, never
// from arguments; mutations answer {ok:false, reason} for policy (not_granted, not_owned,
// not_found, too_large, limit_reached) and reject only for malformed arguments or a store
// failure; reads reject on store failure; every mutation, allowed or refused, is audited here
// (so auditedByBridge is false for them) and no audit entry carries document content.
// Concurrency: creation (count cap) and append are single atomic store steps, so racing calls
// never overshoot the document count or lose an append.
import { randomBytes } from "node:crypto";
import type { KnowledgeMutation, KnowledgeRefusal } from "@airlock/sdk";
import { hasCode } from "@airlock/sdk";
import { storeError } from "../../state/store/errors.ts";
import type { AuditInput, KnowledgeDocRecord, Store } from "../../state/store/types.ts";
import type { CallGrant, Capability } from "../bridge/types.ts";
import {
  contentArg,
  DEFAULT_KNOWLEDGE_LIMITS,
  idArg,
  type KnowledgeLimits,
  levelRank,
  limitArg,
  queryArg,
  writeArg,
  writerOf,
} from "./knowledge-rules.ts";

export type KnowledgeStore = Pick<
  Store,
  | "putKnowledgeDoc"
  | "getKnowledgeDoc"
  | "listKnowledgeDocs"
  | "searchKnowledge"
  | "deleteKnowledgeDoc"
  | "countKnowledgeDocs"
  | "reindexKnowledgeDoc"
  | "createKnowledgeDoc"
  | "appendKnowledgeDoc"
>;

const MUTATIONS = new Set(["write", "append", "delete", "reingest"]);
const READ = 1;
const WRITE = 2;
const MANAGE = 3;

/** Store failures become AIRLOCK_KNOWLEDGE_UNAVAILABLE; coded errors pass through. */
async function guarded<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (hasCode(err) && err.code.startsWith("AIRLOCK_")) throw err;
    throw storeError("AIRLOCK_KNOWLEDGE_UNAVAILABLE", `the knowledge base is unavailable (${what})`, {
      cause: err,
    });
  }
}

const publicDoc = (d: KnowledgeDocRecord) => ({
  id: d.id,
  filename: d.filename,
  content: d.content,
  mime: d.mime,
  writer: d.writer,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export function createKnowledgeCapability(options: {
  store: KnowledgeStore;
  /** Where mutation audit entries go; defaults to the store's appendAudit when it has one. */
  audit?: (entry: AuditInput) => Promise<void>;
  limits?: Partial<KnowledgeLimits>;
}): Capability {
  const { store } = options;
  const limits: KnowledgeLimits = { ...DEFAULT_KNOWLEDGE_LIMITS, ...options.limits };
  const appendAudit =
    options.audit ?? (store as Partial<Pick<Store, "appendAudit">>).appendAudit?.bind(store as Store);
  if (appendAudit === undefined) throw new TypeError("createKnowledgeCapability needs an audit sink");

  const requireRead = (g: CallGrant) => {
    if (levelRank(g.knowledgeLevel) < READ) {
      throw storeError("AIRLOCK_KNOWLEDGE_NOT_GRANTED", "this call has no knowledge access");
    }
  };

  /** Runs a mutation and writes its one audit entry, whatever the outcome. */
  async function mutate(
    g: CallGrant,
    method: string,
    details: Record<string, unknown>,
    run: (writer: string, rank: number) => Promise<KnowledgeMutation>,
  ): Promise<KnowledgeMutation> {
    const writer = writerOf(g);
    const rank = levelRank(g.knowledgeLevel);
    const outcome = rank < WRITE ? refuse("not_granted") : await guarded(method, () => run(writer, rank));
    const refusedByPolicy =
      !outcome.ok && (outcome.reason === "not_granted" || outcome.reason === "not_owned");
    await appendAudit!({
      agent: g.agent,
      plugin: g.namespace,
      tool: g.tool,
      conversationId: g.conversationId,
      kind: "capability",
      action: `knowledge.${method}`,
      allowed: !refusedByPolicy,
      success: outcome.ok,
      error: outcome.ok ? null : outcome.reason,
      durationMs: null,
      details: { ...details, ...(outcome.ok ? { id: outcome.id } : {}), writer, level: g.knowledgeLevel },
    });
    return outcome;
  }

  /** The document when it exists and this writer may change it at this rank, else a refusal. */
  async function owned(
    g: CallGrant,
    id: string,
    writer: string,
    rank: number,
  ): Promise<KnowledgeDocRecord | KnowledgeMutation> {
    const doc = await store.getKnowledgeDoc(g.agent, id);
    if (doc === null) return refuse("not_found");
    if (rank < MANAGE && doc.writer !== writer) return refuse("not_owned");
    return doc;
  }

  return {
    name: "knowledge",
    auditedByBridge: (method) => !MUTATIONS.has(method),
    methods: {
      async search(g, args) {
        requireRead(g);
        const query = queryArg(args[0], limits.maxQueryChars);
        const limit = limitArg(args[1], limits.defaultSearchLimit, limits.maxSearchLimit);
        return guarded("search", () => store.searchKnowledge(g.agent, query, limit));
      },
      async get(g, args) {
        requireRead(g);
        const id = idArg(args[0]);
        const doc = await guarded("get", () => store.getKnowledgeDoc(g.agent, id));
        return doc === null ? null : publicDoc(doc);
      },
      async list(g, args) {
        requireRead(g);
        const limit = limitArg(args[0], limits.defaultListLimit, limits.maxListLimit);
        const mine = (args[0] as { mine?: unknown } | undefined)?.mine === true;
        const docs = await guarded("list", () =>
          store.listKnowledgeDocs(g.agent, mine ? { writer: writerOf(g), limit } : { limit }),
        );
        return docs.map(({ content, agent: _agent, ...rest }) => ({
          ...rest,
          size: Buffer.byteLength(content),
        }));
      },
      async write(g, args) {
        const input = writeArg(args[0]);
        const bytes = Buffer.byteLength(input.content);
        const details = { id: input.id ?? null, filename: input.filename, bytes };
        return mutate(g, "write", details, async (writer, rank) => {
          if (bytes > limits.maxDocBytes) return refuse("too_large");
          const now = new Date().toISOString();
          // A second pass only happens when another call created the same id in between.
          for (let pass = 0; pass < 2; pass++) {
            const existing = input.id === undefined ? null : await store.getKnowledgeDoc(g.agent, input.id);
            if (existing !== null) {
              if (rank < MANAGE && existing.writer !== writer) return refuse("not_owned");
              await store.putKnowledgeDoc({ ...existing, ...pick(input), updatedAt: now });
              return { ok: true, id: existing.id };
            }
            const id = input.id ?? `kd_${randomBytes(12).toString("base64url")}`;
            const doc = { id, agent: g.agent, ...pick(input), writer, createdAt: now, updatedAt: now };
            const created = await store.createKnowledgeDoc(doc, limits.maxDocsPerAgent);
            if (created === "created") return { ok: true, id };
            if (created === "limit_reached") return refuse("limit_reached");
          }
          throw storeError(
            "AIRLOCK_KNOWLEDGE_UNAVAILABLE",
            "the document kept changing under this write; retry",
          );
        });
      },
      async append(g, args) {
        const id = idArg(args[0]);
        const content = contentArg(args[1]);
        return mutate(g, "append", { id, bytes: Buffer.byteLength(content) }, async (writer, rank) => {
          const updatedAt = new Date().toISOString();
          const options = { maxBytes: limits.maxDocBytes, updatedAt, ...(rank < MANAGE ? { writer } : {}) };
          const outcome = await store.appendKnowledgeDoc(g.agent, id, content, options);
          return outcome === "appended" ? { ok: true, id } : refuse(outcome);
        });
      },
      async delete(g, args) {
        const id = idArg(args[0]);
        return mutate(g, "delete", { id }, async (writer, rank) => {
          const doc = await owned(g, id, writer, rank);
          if (!("agent" in doc)) return doc;
          return (await store.deleteKnowledgeDoc(g.agent, id)) ? { ok: true, id } : refuse("not_found");
        });
      },
      async reingest(g, args) {
        const id = idArg(args[0]);
        return mutate(g, "reingest", { id }, async (writer, rank) => {
          const doc = await owned(g, id, writer, rank);
          if (!("agent" in doc)) return doc;
          return (await store.reindexKnowledgeDoc(g.agent, id)) ? { ok: true, id } : refuse("not_found");
        });
      },
    },
  };
}

function refuse(reason: KnowledgeRefusal): KnowledgeMutation {
  return { ok: false, reason };
}

function pick(input: { filename: string; content: string; mime: string }) {
  return { filename: input.filename, content: input.content, mime: input.mime };
}
