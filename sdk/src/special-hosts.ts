// Egress hosts a manifest may never declare: cloud metadata endpoints (by name and by address),
// addresses the egress gate refuses under every policy (unspecified, broadcast, multicast), and
// IPv4 literals in a non-canonical spelling (`2852039166`, `0xa9.254.169.254`, `0251.…`), which
// URL parsers turn into another address than the text shows. Pure data and predicates, no
// node:* imports: the SDK's build, the registry and the host's installer (through
// parseManifest) refuse the same hosts, and host/src/isolation/egress/address.ts takes its metadata names
// and addresses from here, so the run-time gate and the manifest agree.
// Loopback and private literals stay declarable: the operator's allowPrivate decides at run time.

/** Host names of cloud metadata services, refused before any resolution. */
export const METADATA_HOST_NAMES: ReadonlySet<string> = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
]);

/** Cloud metadata addresses (AWS/GCP/Azure/OpenStack IPv4, Azure wireserver, AWS IPv6). */
export const METADATA_ADDRESSES: readonly string[] = ["169.254.169.254", "168.63.129.16", "fd00:ec2::254"];

const DOTTED_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** A label the WHATWG URL parser reads as an IPv4 number (decimal, 0x hex, or 0-led octal). */
const NUMERIC_LABEL = /^(0x[0-9a-f]*|\d+)$/i;

/** Why a manifest may not declare this egress host, or null. `host` is lowercase, no port. */
export function manifestHostRefusal(host: string): string | null {
  const name = host.startsWith("*.") ? host.slice(2) : host;
  if (METADATA_HOST_NAMES.has(name)) return `"${host}" is a cloud metadata endpoint`;
  const labels = name.split(".");
  // WHATWG URL: a host whose last label is numeric is parsed as an IPv4 address
  if (NUMERIC_LABEL.test(labels.at(-1) ?? "")) {
    if (!DOTTED_QUAD.test(name) || host.startsWith("*.")) {
      return `"${host}" is not a canonical IPv4 address (write it as four decimal octets, no leading zeros)`;
    }
    if (METADATA_ADDRESSES.includes(name)) return `"${host}" is a cloud metadata address`;
    const a = Number(labels[0]);
    if (a === 0) return `"${host}" is an unspecified address (0.0.0.0/8)`;
    if (a >= 224 && a <= 239) return `"${host}" is a multicast address`;
    if (name === "255.255.255.255") return `"${host}" is the broadcast address`;
  }
  return null;
}
