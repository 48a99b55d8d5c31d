// Support for the OAuth browser suite: an in-memory OAuthClientProvider for the real MCP SDK v2
// client (what a desktop MCP client keeps on disk), and a loopback callback server that records
// what the authorization server sends the browser back with.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type {
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";

export class MemoryOAuthProvider implements OAuthClientProvider {
  client: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  verifier = "";
  lastState = "";
  authorizationUrl: URL | undefined;
  discovery: OAuthDiscoveryState | undefined;

  readonly redirectUrl: string;
  readonly name: string;

  constructor(redirectUrl: string, name: string) {
    this.redirectUrl = redirectUrl;
    this.name = name;
  }

  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    this.lastState = randomBytes(16).toString("base64url");
    return this.lastState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** A loopback server whose /callback records the query the browser brings back. */
export interface Callback {
  url: string;
  /** The next callback's query (waits for it). */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export async function startCallback(): Promise<Callback> {
  const waiting: Array<(q: URLSearchParams) => void> = [];
  const arrived: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end(); // the browser's /favicon.ico is no callback
      return;
    }
    const query = url.searchParams;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Client</title><p>You can close this window.</p>");
    const resolve = waiting.shift();
    if (resolve === undefined) arrived.push(query);
    else resolve(query);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const ready = arrived.shift();
      return ready === undefined ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve(ready);
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
