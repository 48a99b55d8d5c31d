// Where a URL may go: parses it with the WHATWG URL parser (which turns every numeric spelling
// of an IPv4 host — 2130706433, 0177.0.0.1, 0x7f.1, 127.1 — into its dotted form) and matches
// it against the grant's egress rules and the operator's host policy.
// Invariants: only http and https; no credentials in the URL; an IP-literal host is judged
// as an address before anything else; a host matches a rule exactly or, for `*.example.com`,
// as a subdomain at any depth (never the apex); a rule without ports allows the scheme's
// default port; the secrets a destination binds are the union over the rules that admit it.
import type { EgressRule } from "@airlock/sdk/manifest";
import { canonicalAddress, nameRefusal, type PrivateAllowance, refusalFor } from "./address.ts";
import { fetchError } from "./errors.ts";
import type { HostPolicy } from "./types.ts";

const MAX_URL_LENGTH = 8192;
const DEFAULT_PORT = { http: 80, https: 443 } as const;

export interface Destination {
  /** The normalised URL that is sent (no fragment). */
  readonly url: URL;
  readonly scheme: "http" | "https";
  /** Lowercase, no trailing dot; an IPv6 literal without brackets. */
  readonly hostname: string;
  /** True when the URL names an IP address rather than a host name. */
  readonly literal: boolean;
  readonly port: number;
  /** Secret keys the admitting rules bind to this destination (for some method and path). */
  readonly boundSecrets: ReadonlySet<string>;
  /** The admitting rules that bind secrets, with their method and path conditions. */
  readonly secretRules: readonly EgressRule[];
}

/** Parses an untrusted URL (absolute, or relative to `base` for a redirect's Location). */
export function parseUrl(raw: unknown, base?: URL): URL {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_URL_LENGTH) {
    throw fetchError(
      "AIRLOCK_FETCH_BAD_REQUEST",
      `the URL must be a string of 1 to ${MAX_URL_LENGTH} characters`,
    );
  }
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch (err) {
    throw fetchError("AIRLOCK_FETCH_BAD_REQUEST", "the URL does not parse as an absolute URL", {}, err);
  }
  url.hash = "";
  return url;
}

export function hostMatches(pattern: string, hostname: string): boolean {
  if (pattern === hostname) return true;
  return (
    pattern.startsWith("*.") && hostname.endsWith(pattern.slice(1)) && hostname.length > pattern.length - 1
  );
}

function operatorAllows(policy: HostPolicy | undefined, namespace: string, hostname: string): boolean {
  if (policy === undefined) return true;
  if (typeof policy === "function") return policy(namespace, hostname) === true;
  const patterns = Object.hasOwn(policy, namespace) ? policy[namespace] : undefined;
  return (patterns ?? []).some((p) => p === "*" || hostMatches(p, hostname));
}

export interface DestinationContext {
  readonly namespace: string;
  readonly rules: readonly EgressRule[];
  readonly hosts: HostPolicy | undefined;
  readonly allowance: PrivateAllowance;
}

/** Checks scheme, host, operator policy and port; throws the matching AIRLOCK_FETCH_* refusal. */
export function checkDestination(url: URL, ctx: DestinationContext): Destination {
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== "http" && scheme !== "https") {
    throw fetchError(
      "AIRLOCK_FETCH_SCHEME_NOT_ALLOWED",
      `scheme "${scheme}" is not allowed; use https or http`,
      {
        scheme,
      },
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw fetchError(
      "AIRLOCK_FETCH_BAD_REQUEST",
      "credentials in the URL are not accepted; send them in a header (ctx.secrets.ref)",
    );
  }
  const bracketed = url.hostname.startsWith("[");
  const hostname = (bracketed ? url.hostname.slice(1, -1) : url.hostname).replace(/\.$/, "");
  // One spelling of the host on the wire too: `api.test.` is sent (Host, SNI) as `api.test`.
  if (!bracketed && url.hostname !== hostname) url.hostname = hostname;
  const literal = canonicalAddress(hostname) !== null;
  const port = url.port === "" ? DEFAULT_PORT[scheme] : Number(url.port);
  const where = { host: hostname, port };

  const refusal = literal
    ? refusalFor(hostname, hostname, ctx.allowance)
    : nameRefusal(hostname, ctx.allowance);
  if (refusal !== null) {
    throw fetchError("AIRLOCK_FETCH_ADDRESS_REFUSED", `${hostname} is a ${refusal} address and is refused`, {
      ...where,
      reason: refusal,
    });
  }
  const byHost = ctx.rules.filter((r) => hostMatches(r.host, hostname));
  if (byHost.length === 0 || !operatorAllows(ctx.hosts, ctx.namespace, hostname)) {
    throw fetchError(
      "AIRLOCK_FETCH_HOST_NOT_ALLOWED",
      byHost.length === 0
        ? `${hostname} is not among the hosts this plugin declares in its egress rules`
        : `the operator does not allow plugin "${ctx.namespace}" to reach ${hostname}`,
      { ...where, by: byHost.length === 0 ? "manifest" : "operator" },
    );
  }
  const byScheme = byHost.filter((r) => (r.schemes ?? ["https"]).includes(scheme));
  if (byScheme.length === 0) {
    throw fetchError(
      "AIRLOCK_FETCH_SCHEME_NOT_ALLOWED",
      `${hostname} is declared for ${[...new Set(byHost.flatMap((r) => r.schemes ?? ["https"]))].join(", ")} only, not ${scheme}`,
      { ...where, scheme },
    );
  }
  const admitting = byScheme.filter((r) => (r.ports ?? [DEFAULT_PORT[scheme]]).includes(port));
  if (admitting.length === 0) {
    throw fetchError("AIRLOCK_FETCH_PORT_NOT_ALLOWED", `${hostname} is not declared on port ${port}`, where);
  }
  return {
    url,
    scheme,
    hostname,
    literal,
    port,
    boundSecrets: new Set(admitting.flatMap((r) => r.secrets ?? [])),
    secretRules: admitting.filter((r) => (r.secrets ?? []).length > 0),
  };
}

/** A path prefix admits itself and what lies below it at a segment boundary (`/v1` → `/v1/x`, not `/v1x`). */
function underPath(path: string, prefix: string): boolean {
  if (path === prefix) return true;
  return path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);
}

/** Whether some admitting rule binds `key` for this method and this destination's path. */
export function secretAdmitted(dest: Destination, key: string, method: string): boolean {
  return dest.secretRules.some(
    (r) =>
      (r.secrets ?? []).includes(key) &&
      (r.secretMethods === undefined || (r.secretMethods as readonly string[]).includes(method)) &&
      (r.secretPaths === undefined || r.secretPaths.some((p) => underPath(dest.url.pathname, p))),
  );
}
