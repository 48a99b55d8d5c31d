// Which IP addresses and host names the egress gate refuses, and the operator's explicit
// exceptions (`allowPrivate`).
// Invariants: an address is judged in canonical form (IPv4 dotted quad, IPv6 as 8 hextets);
// an IPv4-mapped IPv6 address is judged as the IPv4 address it reaches; NAT64 (64:ff9b::/96)
// and 6to4 (2002::/16) addresses are refused when the IPv4 address they embed is; anything
// that is not an IP address is refused. Unspecified, broadcast and multicast are never allowed;
// cloud metadata only by its exact address in allowPrivate; the rest by an address, a CIDR or
// (for resolved names) the host name in allowPrivate.
import { BlockList, isIPv4, isIPv6 } from "node:net";
import { METADATA_ADDRESSES, METADATA_HOST_NAMES } from "@airlock/sdk/special-hosts";
import { fetchError } from "./errors.ts";

type Range = readonly [cidr: string, reason: string];

// Order matters: the first matching range names the reason.
const V4_RANGES: readonly Range[] = [
  ["169.254.169.254/32", "metadata"],
  ["168.63.129.16/32", "metadata"],
  ["255.255.255.255/32", "broadcast"],
  ["0.0.0.0/8", "unspecified"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "shared-address-space"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "reserved"],
  ["192.0.2.0/24", "documentation"],
  ["192.88.99.0/24", "reserved"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
];

const V6_RANGES: readonly Range[] = [
  ["fd00:ec2::254/128", "metadata"],
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["::/96", "ipv4-compatible"],
  ["64:ff9b:1::/48", "private"],
  ["100::/64", "reserved"],
  ["2001::/23", "reserved"],
  ["2001:db8::/32", "documentation"],
  ["3fff::/20", "documentation"],
  ["fc00::/7", "unique-local"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local"],
  ["ff00::/8", "multicast"],
];

const NEVER_ALLOWED = new Set(["unspecified", "broadcast", "multicast", "not-an-address", "ipv4-compatible"]);

/** Names refused before any resolution: cloud metadata endpoints (shared with manifest checks). */
const METADATA_NAMES = METADATA_HOST_NAMES;

function compile(ranges: readonly Range[], type: "ipv4" | "ipv6"): Array<[BlockList, string]> {
  return ranges.map(([cidr, reason]) => {
    const [net, prefix] = cidr.split("/") as [string, string];
    const list = new BlockList();
    list.addSubnet(net, Number(prefix), type);
    return [list, reason];
  });
}

// The manifest check (sdk special-hosts.ts) refuses the same metadata addresses at install.
for (const address of METADATA_ADDRESSES) {
  const ranges = isIPv4(address) ? V4_RANGES : V6_RANGES;
  if (!ranges.some(([cidr, reason]) => reason === "metadata" && cidr.startsWith(`${address}/`)))
    throw new Error(`egress: metadata address ${address} is missing from the address table`);
}

const V4 = compile(V4_RANGES, "ipv4");
const V6 = compile(V6_RANGES, "ipv6");

/** Parses an IPv6 address (optionally bracketed, with a zone or a dotted IPv4 tail) to 8 hextets. */
export function ipv6Hextets(text: string): number[] | null {
  let s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!isIPv6(s)) return null;
  const lastColon = s.lastIndexOf(":");
  const tail = s.slice(lastColon + 1);
  if (tail.includes(".")) {
    const o = tail.split(".").map(Number) as [number, number, number, number];
    s = `${s.slice(0, lastColon + 1)}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = s.split("::");
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const fill = 8 - head.length - rest.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  return [...head, ...Array<string>(fill).fill("0"), ...rest].map((h) => Number.parseInt(h, 16));
}

function v4FromHextets(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** The canonical text of an IP address (IPv4-mapped IPv6 becomes IPv4), or null for a non-address. */
export function canonicalAddress(text: string): { address: string; family: 4 | 6 } | null {
  if (isIPv4(text)) return { address: text, family: 4 };
  const h = ipv6Hextets(text);
  if (h === null) return null;
  const [a, b, c, d, e, f, g, k] = h as [number, number, number, number, number, number, number, number];
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff) {
    return { address: v4FromHextets(g, k), family: 4 };
  }
  return { address: h.map((x) => x.toString(16)).join(":"), family: 6 };
}

function rangeReason(address: string, family: 4 | 6): string | null {
  const table = family === 4 ? V4 : V6;
  const type = family === 4 ? "ipv4" : "ipv6";
  for (const [list, reason] of table) if (list.check(address, type)) return reason;
  return null;
}

/** Why the default policy refuses this address, or null for a public unicast address. */
export function defaultRefusal(text: string): string | null {
  const canon = canonicalAddress(text);
  if (canon === null) return "not-an-address";
  const own = rangeReason(canon.address, canon.family);
  if (own !== null || canon.family === 4) return own;
  const h = ipv6Hextets(canon.address) as number[];
  if (h[0] === 0x64 && h[1] === 0xff9b && h[2] === 0 && h[3] === 0 && h[4] === 0 && h[5] === 0) {
    const inner = defaultRefusal(v4FromHextets(h[6] as number, h[7] as number));
    return inner === null ? null : `nat64-${inner}`;
  }
  if (h[0] === 0x2002) {
    const inner = defaultRefusal(v4FromHextets(h[1] as number, h[2] as number));
    return inner === null ? null : `6to4-${inner}`;
  }
  return null;
}

/** The operator's explicit exceptions, compiled once. */
export interface PrivateAllowance {
  readonly ranges: BlockList;
  readonly exact: ReadonlySet<string>;
  readonly names: ReadonlySet<string>;
}

const NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** Compiles `allowPrivate`; throws AIRLOCK_FETCH_POLICY_INVALID naming a bad entry. */
export function compileAllowance(entries: readonly string[] = []): PrivateAllowance {
  const ranges = new BlockList();
  const exact = new Set<string>();
  const names = new Set<string>();
  for (const raw of entries) {
    const entry = typeof raw === "string" ? raw.trim().toLowerCase() : "";
    const [net = "", prefix, extra] = entry.split("/");
    const canon = canonicalAddress(net);
    const bits = prefix === undefined ? (canon?.family === 4 ? 32 : 128) : Number(prefix);
    if (
      canon !== null &&
      extra === undefined &&
      (prefix === undefined || /^\d{1,3}$/.test(prefix)) &&
      Number.isInteger(bits)
    ) {
      const max = canon.family === 4 ? 32 : 128;
      if (bits < 0 || bits > max) throw badEntry(raw);
      ranges.addSubnet(canon.address, bits, canon.family === 4 ? "ipv4" : "ipv6");
      if (bits === max) exact.add(canon.address);
    } else if (prefix === undefined && NAME.test(entry.replace(/\.$/, ""))) {
      names.add(entry.replace(/\.$/, ""));
    } else {
      throw badEntry(raw);
    }
  }
  return { ranges, exact, names };
}

function badEntry(entry: unknown) {
  return fetchError(
    "AIRLOCK_FETCH_POLICY_INVALID",
    `allowPrivate entry ${JSON.stringify(entry)} is neither an IP address, a CIDR nor a host name`,
    { entry: String(entry) },
  );
}

/**
 * Why this address may not be reached for `hostname` (the URL's host, lowercased, no trailing
 * dot), or null when it may. `hostname` equal to the address means an IP literal in the URL.
 */
export function refusalFor(address: string, hostname: string, allow: PrivateAllowance): string | null {
  const reason = defaultRefusal(address);
  if (reason === null) return null;
  if (NEVER_ALLOWED.has(reason)) return reason;
  const canon = canonicalAddress(address) as { address: string; family: 4 | 6 };
  if (reason === "metadata") return allow.exact.has(canon.address) ? null : reason;
  if (allow.ranges.check(canon.address, canon.family === 4 ? "ipv4" : "ipv6")) return null;
  if (allow.names.has(hostname) && canonicalAddress(hostname) === null) return null;
  return reason;
}

/** Names refused before resolution (metadata endpoints, localhost), or null. */
export function nameRefusal(hostname: string, allow: PrivateAllowance): string | null {
  if (METADATA_NAMES.has(hostname)) return allow.names.has(hostname) ? null : "metadata";
  if (hostname === "localhost" || hostname.endsWith(".localhost")) {
    return allow.names.has(hostname) ? null : "loopback";
  }
  return null;
}
