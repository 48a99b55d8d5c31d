// Makes the upgrade fixtures of the checkout it runs from: a SQLite data dir and a PostgreSQL dump
// filled with real data in every table through the public surfaces of a real host (`airlock serve`
// as a child process, its admin API, its MCP endpoint, its OAuth authorization server), plus
// facts.json, what an upgraded host must still show. test/durability/upgrade.test.ts opens every
// fixture directory with the current code on both stores and checks every fact. Every table holds
// rows but `oauth_tokens`: a served host refuses a loopback OAuth provider's token endpoint as a
// private address, so no connection can be completed against a test provider (fillBroker).
//
//   node --no-node-snapshot scripts/make-upgrade-fixture.ts --out test/fixtures/upgrade/<version>
//     [--pg postgres://postgres@127.0.0.1:5432/test]
//
// Run it from the checkout of a released version (a worktree of its commit, after `npm ci`): it
// uses only surfaces 1.0.0 has (admin API routes, MCP 2025-11-25, /oauth/*), so the same file
// serves every later release. Deterministic where it can be: a fixed test-only master key, fixed
// agents, plugins, documents, secrets and calls; tokens, ids and times are whatever the host made
// and are recorded in facts.json.
// Contract: leaves no process and no PostgreSQL schema behind; writes only under --out.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash, createPrivateKey, createPublicKey, randomBytes } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MANIFEST_VERSION, PLUGIN_GLOBAL, SDK_VERSION } from "@airlock/sdk/manifest";
import { sha512Integrity, writePluginTarball } from "@airlock/sdk/package";
import { keyIdOf, signIntegrity } from "@airlock/sdk/signing";
import pg from "pg";
import { CLIENT_ID, CLIENT_SECRET, startModelStub, startOAuthServer } from "../test/support/oauth-server.ts";
import { startRemoteFixture } from "../test/support/remote-mcp-fixture.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The `airlock` command of a checkout: bin/airlock.js today, host/bin/airlock.ts in 1.0.0. */
function airlockBin(root: string): string {
  const today = join(root, "bin", "airlock.js");
  return existsSync(today) ? today : join(root, "host", "bin", "airlock.ts");
}

/** The fixture's vault master key: test-only, published with the fixture (never a real key). */
export const FIXTURE_MASTER_KEY = createHash("sha256")
  .update("airlock upgrade fixture: test-only key")
  .digest("base64");
/** The schema the PostgreSQL fixture is made in; the dump names it, the test renames it. */
export const FIXTURE_SCHEMA = "airlock_upgrade_fixture";
const NS = "fx";
const VERSIONS = ["1.0.0", "1.1.0", "1.2.0"] as const;
/** Agents at every knowledge level. */
const AGENTS = { ada: "manage", bo: "write", cy: "read", di: "none" } as const;
const SECRET = "fixture-secret-7d1c4b (test only)";

type Json = Record<string, unknown>;

// ---- the fixture plugin -------------------------------------------------------------------

const TOOLS: Record<
  string,
  { readOnly: boolean; props: Record<string, string>; secret?: true; long?: true }
> = {
  version: { readOnly: true, props: {} },
  checkSecret: { readOnly: true, props: { guess: "string" }, secret: true },
  writeDoc: { readOnly: false, props: { filename: "string", content: "string" } },
  readDoc: { readOnly: true, props: { id: "string" } },
  setState: { readOnly: false, props: { key: "string", value: "string" } },
  getState: { readOnly: true, props: { key: "string" } },
  putArtifact: { readOnly: false, props: { text: "string" } },
  change: { readOnly: false, props: { text: "string" } },
  slow: { readOnly: true, props: { ms: "integer" }, long: true },
};

function pluginBundle(version: string, namespace: string): string {
  return `const text = (t) => ({ content: [{ type: "text", text: t }] });
globalThis[${JSON.stringify(PLUGIN_GLOBAL)}] = { namespace: ${JSON.stringify(namespace)}, version: ${JSON.stringify(version)}, tools: {
  version: () => text(${JSON.stringify(version)}),
  checkSecret: async (input, ctx) => text((await ctx.secrets.get("api_key")) === input.guess ? "match" : "mismatch"),
  writeDoc: async (input, ctx) => text(JSON.stringify(ctx.knowledge ? await ctx.knowledge.write({ filename: input.filename, content: input.content }) : { ok: false, reason: "absent" })),
  readDoc: async (input, ctx) => {
    if (!ctx.knowledge) return text("absent");
    const d = await ctx.knowledge.get(input.id);
    return text(JSON.stringify(d && { id: d.id, filename: d.filename, content: d.content, writer: d.writer }));
  },
  setState: async (input, ctx) => { await ctx.state.set(input.key, input.value); return text("ok"); },
  getState: async (input, ctx) => text(JSON.stringify((await ctx.state.get(input.key)) ?? null)),
  putArtifact: async (input, ctx) => text(await ctx.artifacts.put({ buffer: input.text, filename: "note.txt", mime: "text/plain" }, 3600000)),
  change: (input) => text("changed " + input.text),
  slow: async (input) => { await new Promise((r) => setTimeout(r, input.ms)); return text("slept"); },
} };
`;
}

export function fixturePlugin(version: string, namespace = NS): Uint8Array {
  const bundle = pluginBundle(version, namespace);
  const bytes = new TextEncoder().encode(bundle);
  const tools = Object.entries(TOOLS).map(([name, t]) => ({
    name,
    description: `The fixture's ${name} tool.`,
    category: "utility",
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(Object.entries(t.props).map(([k, type]) => [k, { type }])),
      required: Object.keys(t.props),
      additionalProperties: false,
    },
    annotations: t.readOnly ? { readOnlyHint: true } : {},
    requiredSecrets: t.secret ? [{ key: "api_key", type: "text", optional: false, sensitive: true }] : [],
    inputExamples: [],
    harness: null,
    ...(t.long ? { longRunning: true } : {}),
  }));
  const manifest = {
    manifestVersion: MANIFEST_VERSION,
    namespace,
    version,
    description: "upgrade fixture plugin",
    engine: ">=0.1.0",
    sdk: SDK_VERSION,
    bundle: { file: "index.js", integrity: sha512Integrity(bytes), size: bytes.length },
    tools,
    knowledge: "manage",
    egress: [],
    limits: {},
  };
  return writePluginTarball({
    packageJson: JSON.stringify({ name: namespace, version, private: true }),
    manifest: JSON.stringify(manifest),
    bundle,
  });
}

/**
 * The plugin `ox`: declares the OAuth provider `github` of a loopback OAuth server and model use;
 * `connected` asks the broker for a token, `ask` calls the granted model.
 */
export function brokerPlugin(provider: { authorizationUrl: string; tokenUrl: string }): Uint8Array {
  const bundle = `const text = (t) => ({ content: [{ type: "text", text: t }] });
globalThis[${JSON.stringify(PLUGIN_GLOBAL)}] = { namespace: "ox", version: "1.0.0", tools: {
  connected: async (input, ctx) => text((await ctx.oauth.requireToken("github")).ok ? "connected" : "not connected"),
  ask: async (input, ctx) => text((await ctx.models.complete({ messages: [{ role: "user", content: input.q }], maxTokens: 20 })).text),
} };
`;
  const bytes = new TextEncoder().encode(bundle);
  const tool = (name: string, props: Record<string, unknown>) => ({
    name,
    description: `The broker fixture's ${name} tool.`,
    category: "utility",
    inputSchema: {
      type: "object",
      properties: props,
      required: Object.keys(props),
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    requiredSecrets: [],
    inputExamples: [],
    harness: null,
  });
  const manifest = {
    manifestVersion: MANIFEST_VERSION,
    namespace: "ox",
    version: "1.0.0",
    description: "upgrade fixture plugin: OAuth and models",
    engine: ">=0.1.0",
    sdk: SDK_VERSION,
    bundle: { file: "index.js", integrity: sha512Integrity(bytes), size: bytes.length },
    tools: [tool("connected", {}), tool("ask", { q: { type: "string" } })],
    knowledge: null,
    egress: [{ host: "api.test" }],
    limits: {},
    oauth: [{ name: "github", ...provider, scopes: ["repo"], apiHosts: ["api.test"] }],
    models: { reason: "answers with the fixture's model" },
  };
  return writePluginTarball({
    packageJson: JSON.stringify({ name: "ox", version: "1.0.0", private: true }),
    manifest: JSON.stringify(manifest),
    bundle,
  });
}

/** The publisher of the signed plugin `sx`: an ed25519 key from a fixed seed (test-only). */
export function fixturePublisher() {
  const seed = createHash("sha256").update("airlock upgrade fixture: publisher seed").digest();
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  const privateKey = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString(),
  };
}

/** Installs the signed plugin `sx` from a file with its `.sig` sidecar, trusting the publisher's key. */
async function installSigned(host: RunningHost, work: string) {
  const publisher = fixturePublisher();
  const bytes = fixturePlugin("1.0.0", "sx");
  const file = join(work, "sx-1.0.0.tgz");
  writeFileSync(file, bytes);
  writeFileSync(
    `${file}.sig`,
    JSON.stringify(signIntegrity(sha512Integrity(bytes), publisher.privateKeyPem)),
  );
  await api(host, host.operatorToken, "POST", "/api/plugins", {
    spec: file,
    trustKeys: [publisher.publicKeyPem],
  });
  return { namespace: "sx", keyId: keyIdOf(publisher.publicKeyPem) };
}

// ---- a real host -----------------------------------------------------------------------------

export interface RunningHost {
  url: string;
  operatorToken: string;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `airlock serve` on `dataDir` (and `store`, a postgres URL), on a free port; resolves once it serves. */
export function serve(options: {
  root?: string;
  dataDir: string;
  store?: string;
  env?: Json;
}): Promise<RunningHost> {
  const root = options.root ?? ROOT;
  const args = ["--no-node-snapshot", airlockBin(root), "serve", "--data-dir", options.dataDir];
  if (options.store !== undefined) args.push("--store", options.store);
  args.push("--port", "0", "--sandbox", "in-process");
  const state = mkdtempSync(join(tmpdir(), "airlock-fixture-state-"));
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1", XDG_STATE_HOME: state, HOME: state, ...(options.env as object) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const closed = new Promise<number | null>((done) => child.once("close", (code) => done(code)));
  return new Promise((ok, fail) => {
    const onClose = (code: number | null) => {
      rmSync(state, { recursive: true, force: true });
      fail(new Error(`airlock serve exited ${code} before serving\n${out}`));
    };
    child.once("close", onClose);
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (!/Press Ctrl\+C to stop/.test(out)) return;
      child.off("close", onClose);
      const url = /Admin API:\s+(\S+)\/api/.exec(out)?.[1];
      const operatorToken = /Operator token:\s+(\S+)/.exec(out)?.[1];
      if (url === undefined || operatorToken === undefined)
        return fail(new Error(`no URL or token in\n${out}`));
      ok({
        url,
        operatorToken,
        output: () => out,
        async stop(signal = "SIGTERM") {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          const code = await closed;
          rmSync(state, { recursive: true, force: true });
          return code;
        },
      });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
  });
}

/** A JSON request to the host; throws on a status other than `expect` (default: any 2xx). */
export async function api(
  host: { url: string },
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  expect?: number,
): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const init: RequestInit = { method, headers };
  if (body instanceof Uint8Array) {
    headers["content-type"] = "application/octet-stream";
    init.body = new Uint8Array(body);
  } else if (body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(`${host.url}${path}`, init);
  const text = await res.text();
  const parsed = text === "" ? {} : (JSON.parse(text) as Json);
  const ok = expect === undefined ? res.status >= 200 && res.status < 300 : res.status === expect;
  if (!ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return { status: res.status, body: parsed };
}

/** One tool call through the admin API's calls route; answers the outcome. */
export async function call(
  host: RunningHost,
  token: string,
  agent: string,
  tool: string,
  input: Json,
  extra: Json = {},
) {
  return (await api(host, token, "POST", `/api/instances/${agent}/calls`, { tool, input, ...extra })).body;
}

/** The first text of a call outcome. */
export function textOf(outcome: Json): string {
  const content = (outcome.result as { content?: { text?: string }[] } | undefined)?.content ?? [];
  return content[0]?.text ?? "";
}

/** An MCP 2025-11-25 session with the agent's endpoint: initialize, then requests answered as JSON. */
export async function mcpSession(host: { url: string }, token: string, agent: string) {
  let session: string | null = null;
  let id = 0;
  const post = async (message: Json) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    };
    if (session !== null) headers["mcp-session-id"] = session;
    const res = await fetch(`${host.url}/mcp/${agent}`, {
      method: "POST",
      headers,
      body: JSON.stringify(message),
    });
    session = res.headers.get("mcp-session-id") ?? session;
    const text = await res.text();
    const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "{}");
    return { status: res.status, body: JSON.parse(json) as Json };
  };
  const init = await post({
    jsonrpc: "2.0",
    id: ++id,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { tasks: {} },
      clientInfo: { name: "upgrade-fixture", version: "1.0.0" },
    },
  });
  if (init.status !== 200) return { init, request: async () => init };
  await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    init,
    request: (method: string, params: Json) => post({ jsonrpc: "2.0", id: ++id, method, params }),
  };
}

// ---- filling a store ---------------------------------------------------------------------------

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const got = await probe();
    if (got !== undefined) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A call that waits for an operator: started, found in the approvals, decided, finished. */
async function decided(host: RunningHost, agent: string, text: string, approve: boolean) {
  const op = host.operatorToken;
  const pending = call(host, op, agent, `${NS}:change`, { text }, { conversationId: "conv-approvals" });
  const approval = await until("the approval", async () => {
    const list = (await api(host, op, "GET", `/api/approvals?agent=${agent}`)).body.approvals as Json[];
    return list.find((a) => (a.input as Json).text === text);
  });
  const body = approve ? { approve: true } : { approve: false, reason: "not today (fixture)" };
  await api(host, op, "POST", `/api/approvals/${approval.id}`, body);
  return { approvalId: approval.id, outcome: await pending };
}

/** An OAuth grant an MCP client holds for `agent`: registration, consent in a console session, code exchange. */
async function oauthGrant(host: RunningHost, agent: string) {
  const redirect = "http://127.0.0.1:9/callback";
  const client = (
    await api(host, null, "POST", "/oauth/register", {
      client_name: "Fixture client",
      redirect_uris: [redirect],
    })
  ).body;
  const session = await fetch(`${host.url}/admin/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: host.operatorToken }),
  });
  const cookie = (session.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const verifier = randomBytes(32).toString("base64url");
  const q = new URLSearchParams({
    response_type: "code",
    client_id: String(client.client_id),
    redirect_uri: redirect,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "fixture",
    resource: `${host.url}/mcp/${agent}`,
  });
  const page = await (await fetch(`${host.url}/oauth/authorize?${q}`, { headers: { cookie } })).text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page)?.[1] ?? "";
  const decision = await fetch(`${host.url}/oauth/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: host.url },
    body: new URLSearchParams({
      request: field("request"),
      csrf: field("csrf"),
      decision: "approve",
    }).toString(),
  });
  const code = new URL(decision.headers.get("location") ?? "http://x/").searchParams.get("code");
  if (code === null) throw new Error(`no authorization code: ${decision.status} ${page.slice(0, 400)}`);
  const tokens = await fetch(`${host.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: String(client.client_id),
      redirect_uri: redirect,
    }).toString(),
  });
  if (!tokens.ok) throw new Error(`code exchange: ${tokens.status} ${await tokens.text()}`);
  return String(client.client_id);
}

/** Agents at every level, tools enabled, secrets, tokens (one revoked), and the plugin's three versions. */
async function fillAccounts(host: RunningHost, facts: Json, work: string) {
  const op = host.operatorToken;
  const signed = await installSigned(host, work);
  for (const version of VERSIONS)
    await api(host, op, "POST", "/api/plugins?allowUnsigned=true", fixturePlugin(version));
  // 1.2.0 active; rolled back to 1.1.0, whose rollback target is 1.0.0
  await api(host, op, "POST", `/api/plugins/${NS}/rollback`);
  const agentTokens: Record<string, string> = {};
  for (const [slug, level] of Object.entries(AGENTS)) {
    const created = (await api(host, op, "POST", "/api/instances", { slug, token: true })).body;
    agentTokens[slug] = String((created.token as Json).token);
    await api(host, op, "PUT", `/api/instances/${slug}/knowledge`, { level });
    const enabled = Object.fromEntries([
      ...Object.keys(TOOLS).map((t) => [`${NS}:${t}`, true]),
      ["sx:version", true],
    ]);
    await api(host, op, "PATCH", `/api/instances/${slug}/tools`, { enabled });
    await api(host, op, "PUT", `/api/instances/${slug}/secrets`, {
      values: { api_key: `${SECRET} ${slug}` },
    });
  }
  await api(host, op, "DELETE", `/api/instances/di/secrets/api_key`);
  const labelled = (
    await api(host, op, "POST", "/api/tokens", { role: "agent", agent: "ada", label: "desk" })
  ).body;
  const second = (await api(host, op, "POST", "/api/tokens", { role: "operator", label: "second operator" }))
    .body;
  const revoked = (await api(host, op, "POST", "/api/tokens", { role: "agent", agent: "bo", label: "gone" }))
    .body;
  await api(host, op, "DELETE", `/api/tokens/${(revoked.record as Json).id}`);
  Object.assign(facts, {
    signed,
    operatorToken: op,
    agentTokens,
    extraTokens: { adaDesk: labelled.token, secondOperator: second.token },
    revokedToken: revoked.token,
    secrets: Object.fromEntries(
      Object.keys(AGENTS).map((slug) => [slug, slug === "di" ? null : `${SECRET} ${slug}`]),
    ),
  });
}

/** Knowledge documents, state, an artifact, calls and refusals: through the plugin's tools. */
async function fillData(host: RunningHost, facts: Json) {
  const op = host.operatorToken;
  const tokens = facts.agentTokens as Record<string, string>;
  const auto = { autoApprove: true, conversationId: "conv-1" };
  const docs: Json[] = [];
  for (const [agent, content] of [
    ["ada", "Ada's runbook: rotate the keys every quarter."],
    ["bo", "Bo's notes: the fixture remembers this line."],
  ] as const) {
    const out = await call(host, op, agent, `${NS}:writeDoc`, { filename: `${agent}.md`, content }, auto);
    const written = JSON.parse(textOf(out)) as Json;
    if (written.ok !== true) throw new Error(`writeDoc for ${agent}: ${textOf(out)}`);
    docs.push({ agent, id: written.id, filename: `${agent}.md`, content, writer: `plugin:${NS}` });
  }
  // denials: a read-level agent's write is refused; a none-level agent has no knowledge at all
  const refused = JSON.parse(
    textOf(await call(host, op, "cy", `${NS}:writeDoc`, { filename: "no.md", content: "x" }, auto)),
  ) as Json;
  if (refused.ok !== false) throw new Error("a read-level write was not refused");
  await call(host, op, "ada", `${NS}:setState`, { key: "colour", value: "teal" }, auto);
  await call(host, op, "bo", `${NS}:setState`, { key: "colour", value: "amber" }, auto);
  const artifact = textOf(await call(host, op, "ada", `${NS}:putArtifact`, { text: "artifact bytes" }, auto));
  // calls with the agents' own tokens, one of a tool whose secret is missing (a refusal)
  for (const agent of ["ada", "bo", "cy"])
    await call(host, tokens[agent] ?? "", agent, `${NS}:checkSecret`, { guess: "wrong" });
  const missing = await call(host, tokens.di ?? "", "di", `${NS}:checkSecret`, { guess: "x" });
  const approved = await decided(host, "ada", "approve me", true);
  const denied = await decided(host, "ada", "deny me", false);
  Object.assign(facts, {
    documents: docs,
    state: [
      { agent: "ada", conversationId: "conv-1", key: "colour", value: "teal" },
      { agent: "bo", conversationId: "conv-1", key: "colour", value: "amber" },
    ],
    artifactHandle: artifact,
    missingSecretCode: missing.errorCode ?? null,
    approvals: [
      { ...approved, approve: true, text: textOf(approved.outcome) },
      { ...denied, approve: false, text: textOf(denied.outcome) },
    ],
  });
}

/** Approval policy, code mode (scratch, a snippet), an OAuth grant, a remote server, a model grant, a task. */
async function fillSettings(host: RunningHost, facts: Json) {
  const op = host.operatorToken;
  await api(host, op, "PATCH", "/api/instances/bo/people", {
    approval: "client",
    tools: { [`${NS}:change`]: "auto", [`${NS}:setState`]: "operator" },
  });
  await api(host, op, "PUT", "/api/instances/ada/code-mode", {
    enabled: true,
    scratch: true,
    snippets: true,
    limits: { scratchTtlSeconds: 2_592_000 },
  });
  const code = `const v = await tools.${NS}.version({}); await scratch.set("seen", v); return v;`;
  await api(host, op, "PUT", "/api/instances/ada/snippets/fixture-version", {
    code,
    description: "the fixture plugin's version",
  });
  await api(host, op, "POST", "/api/instances/ada/snippets/fixture-version/promote", {});
  const run = await call(host, op, "ada", "airlock:run_code", { code }, { conversationId: "conv-code" });
  if (run.errorCode !== undefined) throw new Error(`run_code: ${JSON.stringify(run)}`);
  const clientId = await oauthGrant(host, "ada");
  const remote = await startRemoteFixture();
  try {
    await api(host, op, "POST", "/api/remote", {
      url: `mcp+${remote.url}`,
      namespace: "rx",
      allowPrivate: ["127.0.0.1"],
    });
  } finally {
    await remote.close();
  }
  await api(host, op, "PUT", `/api/plugins/${NS}/worker`, { tier: "own" });
  const session = await mcpSession(host, (facts.agentTokens as Json).ada as string, "ada");
  const task = await session.request("tools/call", {
    name: `${NS}__slow`,
    arguments: { ms: 10 },
    task: { ttl: 3_600_000 },
  });
  const taskId = ((task.body.result as Json | undefined)?.task as Json | undefined)?.taskId;
  if (taskId === undefined) throw new Error(`no task: ${JSON.stringify(task.body)}`);
  Object.assign(facts, { snippetCode: code, runCodeResult: textOf(run), oauthClientId: clientId, taskId });
}

/** Follows a connect link's redirects (host → provider → host callback), as a browser would. */
async function follow(url: string, hops: number): Promise<void> {
  let next = url;
  for (let hop = 0; hop < hops; hop++) {
    const res = await fetch(next, { redirect: "manual" });
    await res.text();
    const location = res.headers.get("location");
    if (location === null) return;
    next = new URL(location, next).href;
  }
}

/**
 * The broker's tables: a connect link left pending (oauth_flows), model grants, a model call
 * counted (model_usage). No OAuth connection (oauth_tokens): `airlock serve` refuses the loopback
 * provider's token endpoint as a private address, as it refuses the loopback model stub (the
 * call fails, and is counted).
 */
async function fillBroker(host: RunningHost) {
  const op = host.operatorToken;
  const oauth = await startOAuthServer();
  const model = await startModelStub("sk-fixture-test-only");
  try {
    const plugin = brokerPlugin({
      authorizationUrl: oauth.server.url("/authorize"),
      tokenUrl: oauth.server.url("/token"),
    });
    await api(host, op, "POST", "/api/plugins?allowUnsigned=true", plugin);
    await api(host, op, "PATCH", "/api/instances/ada/tools", {
      enabled: { "ox:connected": true, "ox:ask": true },
    });
    await api(host, op, "PUT", "/api/instances/ada/secrets", {
      values: { github_oauth_client_id: CLIENT_ID, github_oauth_client_secret: CLIENT_SECRET },
    });
    const link = async () =>
      String(
        (await api(host, op, "POST", "/api/instances/ada/oauth/github/link", { plugin: "ox" })).body.url,
      );
    // opened, never finished: a pending flow
    await follow(await link(), 1);
    await api(host, op, "PUT", "/api/models/fixture-model", {
      baseUrl: model.server.url("/v1"),
      model: "fixture-1",
      apiKey: "sk-fixture-test-only",
    });
    for (const ns of [NS, "ox"])
      await api(host, op, "PUT", `/api/instances/ada/models/${ns}`, {
        connection: "fixture-model",
        maxCalls: 7,
        period: "month",
      });
    await call(host, op, "ada", "ox:ask", { q: "hello" });
  } finally {
    await oauth.close();
    await model.close();
  }
}

/** What the host shows after filling it: the views the upgraded host must show unchanged. */
async function views(host: RunningHost): Promise<Json> {
  const op = host.operatorToken;
  const get = async (path: string) => (await api(host, op, "GET", path)).body;
  const agents: Json = {};
  for (const slug of Object.keys(AGENTS)) {
    agents[slug] = {
      knowledge: await get(`/api/instances/${slug}/knowledge`),
      tools: ((await get(`/api/instances/${slug}/tools`)).tools as Json[]).map((t) => ({
        id: t.id,
        version: t.version,
        enabled: t.enabled,
        missingSecrets: t.missingSecrets,
        served: t.served,
      })),
      secrets: await get(`/api/instances/${slug}/secrets`),
      people: await get(`/api/instances/${slug}/people`),
      codeMode: await get(`/api/instances/${slug}/code-mode`),
      snippets: await get(`/api/instances/${slug}/snippets`),
      oauthGrants: await get(`/api/instances/${slug}/oauth-grants`),
      // without `used`: that is the current period's count, which a later month shows as 0
      models: {
        grants: ((await get(`/api/instances/${slug}/models`)).grants as Json[]).map(({ used: _, ...g }) => g),
      },
      oauth: await get(`/api/instances/${slug}/oauth`),
    };
  }
  return {
    agents,
    instances: await get("/api/instances"),
    tokens: await get("/api/tokens"),
    plugins: await get("/api/plugins"),
    remote: await get("/api/remote"),
    models: await get("/api/models"),
    snippet: await get("/api/instances/ada/snippets/fixture-version"),
    audit: await get("/api/audit?limit=1000"),
  };
}

/** Fills a fresh host's store; answers the facts (what was made, and the views it shows). */
async function fill(host: RunningHost, work: string): Promise<Json> {
  const facts: Json = {};
  await fillAccounts(host, facts, work);
  await fillData(host, facts);
  await fillSettings(host, facts);
  await fillBroker(host);
  const version = (await api(host, null, "GET", "/healthz")).body.version;
  return { hostVersion: version, ...facts, views: await views(host) };
}

/** A data dir holding the fixture's master key (0600), as the host would have generated it. */
function dataDirWithKey(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  writeFileSync(join(path, "master.key"), `${FIXTURE_MASTER_KEY}\n`, { mode: 0o600 });
  return path;
}

/** Copies a stopped host's data dir, leaving out what names the running process. */
function keepDataDir(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, {
    recursive: true,
    filter: (src) => !/(^|\/)(host\.json|[^/]*\.lock|code-cache)$/.test(src),
  });
  chmodSync(join(to, "master.key"), 0o600);
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
  } finally {
    await client.end();
  }
}

/** Serves `dataDir` (and `store`), fills it, and stops the host; a host that exits badly is an error. */
async function fillHost(dataDir: string, work: string, store?: string): Promise<Json> {
  const host = await serve(store === undefined ? { dataDir } : { dataDir, store });
  let facts: Json;
  try {
    facts = await fill(host, work);
  } catch (err) {
    await host.stop();
    throw err;
  }
  const code = await host.stop();
  if (code !== 0) throw new Error(`the host exited ${code}\n${host.output()}`);
  return facts;
}

async function makeSqlite(out: string, work: string): Promise<Json> {
  const dataDir = dataDirWithKey(join(work, "sqlite-data"));
  const facts = await fillHost(dataDir, work);
  keepDataDir(dataDir, join(out, "sqlite", "data"));
  return facts;
}

async function makePostgres(out: string, work: string, url: string): Promise<Json> {
  await dropSchema(url, FIXTURE_SCHEMA);
  const dataDir = dataDirWithKey(join(work, "pg-data"));
  const store = `${url}${url.includes("?") ? "&" : "?"}schema=${FIXTURE_SCHEMA}`;
  const facts = await fillHost(dataDir, work, store);
  try {
    const dump = spawnSync(
      "pg_dump",
      ["--no-owner", "--no-privileges", "-n", FIXTURE_SCHEMA, "-n", `${FIXTURE_SCHEMA}_jobs`, url],
      { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
    );
    if (dump.status !== 0) throw new Error(`pg_dump failed: ${dump.stderr}`);
    mkdirSync(join(out, "postgres"), { recursive: true });
    writeFileSync(join(out, "postgres", "dump.sql"), dump.stdout);
    // the replica's data dir: its master key and what 1.0.0 kept there (trusted keys, packages)
    keepDataDir(dataDir, join(out, "postgres", "data"));
  } finally {
    await dropSchema(url, FIXTURE_SCHEMA);
  }
  return { schema: FIXTURE_SCHEMA, ...facts };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { out: { type: "string" }, pg: { type: "string" }, only: { type: "string" } },
  });
  if (values.out === undefined)
    throw new Error("usage: make-upgrade-fixture.ts --out DIR [--pg URL] [--only sqlite|postgres]");
  const out = resolve(values.out);
  const url = values.pg ?? process.env.AIRLOCK_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";
  const work = mkdtempSync(join(tmpdir(), "airlock-fixture-"));
  mkdirSync(out, { recursive: true });
  try {
    const facts: Json = { masterKey: FIXTURE_MASTER_KEY };
    if (values.only !== "postgres") facts.sqlite = await makeSqlite(out, work);
    if (values.only !== "sqlite") facts.postgres = await makePostgres(out, work, url);
    writeFileSync(join(out, "facts.json"), `${JSON.stringify(facts, null, 2)}\n`);
    process.stdout.write(`fixture written to ${out}: ${readdirSync(out).join(", ")}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
