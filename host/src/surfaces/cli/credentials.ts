// Tokens the CLI issued for itself, kept in `<data-dir>/credentials.json` (mode 0600) so that
// `airlock start` can print working tokens again on the next start (the store keeps only
// hashes). Invariants: a token is reused only while `host.authenticate` still accepts it with
// the expected role and agent (through a running host's admin API: while its id is still listed); otherwise a new one is issued and the file rewritten atomically.
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hasCode } from "@airlock/sdk/errors";
import type { AirlockHost } from "../../contracts/host.ts";

export interface IssuedToken {
  id: string;
  token: string;
}

export interface Credentials {
  operator?: IssuedToken;
  agents: Record<string, IssuedToken>;
}

export const CREDENTIALS_FILE = "credentials.json";

export async function readCredentials(dataDir: string): Promise<Credentials> {
  let text: string;
  try {
    text = await readFile(join(dataDir, CREDENTIALS_FILE), "utf8");
  } catch (error) {
    if (hasCode(error, "ENOENT")) return { agents: {} };
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<Credentials>;
  return { ...(parsed.operator ? { operator: parsed.operator } : {}), agents: parsed.agents ?? {} };
}

export async function writeCredentials(dataDir: string, credentials: Credentials): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, CREDENTIALS_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/** A host the CLI can issue its agent tokens through: one it opened, or a running one's admin API. */
export type TokenIssuer = Pick<AirlockHost, "issueToken" | "listTokens"> &
  Partial<Pick<AirlockHost, "authenticate">>;

async function stillValid(
  host: TokenIssuer,
  issued: IssuedToken | undefined,
  agent: string | null,
): Promise<boolean> {
  if (issued === undefined) return false;
  if (host.authenticate === undefined) {
    // Through the admin API: the kept token's id is still listed (not revoked) for that agent.
    const listed = await host.listTokens(agent ?? undefined);
    return listed.some((t) => t.id === issued.id && t.agent === agent);
  }
  const record = await host.authenticate(issued.token);
  return record !== null && record.id === issued.id && record.agent === agent;
}

/** The operator token the CLI keeps, issuing (and saving) one when none works. */
export async function ensureOperatorToken(host: AirlockHost, dataDir: string): Promise<IssuedToken> {
  const credentials = await readCredentials(dataDir);
  if (credentials.operator && (await stillValid(host, credentials.operator, null)))
    return credentials.operator;
  credentials.operator = await host.issueToken("operator", undefined, "airlock CLI: operator");
  await writeCredentials(dataDir, credentials);
  return credentials.operator;
}

/** The agent token the CLI keeps for `agent`, issuing (and saving) one when none works. */
export async function ensureAgentToken(
  host: TokenIssuer,
  dataDir: string,
  agent: string,
): Promise<IssuedToken> {
  const credentials = await readCredentials(dataDir);
  const current = credentials.agents[agent];
  if (current && (await stillValid(host, current, agent))) return current;
  const issued = await host.issueToken("agent", agent, `airlock CLI: agent ${agent}`);
  credentials.agents[agent] = issued;
  await writeCredentials(dataDir, credentials);
  return issued;
}
