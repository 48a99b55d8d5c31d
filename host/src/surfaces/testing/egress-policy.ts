// Turns the test's egress allowance into the host's EgressPolicy. The policy only narrows
// what manifests declare: `hosts` patterns apply to every namespace; `allowPrivate` lets
// named loopback/private targets through (for local test servers), exactly as an operator would.
import type { EgressPolicy } from "../../contracts/config.ts";
import type { TestEgressAllow } from "./types.ts";

function matches(pattern: string, host: string): boolean {
  if (pattern === "*") return true;
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return pattern === host;
}

export function egressPolicyFor(allow: TestEgressAllow | undefined): EgressPolicy {
  const policy: EgressPolicy = {};
  const hosts = allow?.hosts;
  if (hosts !== undefined)
    policy.hosts = (_namespace: string, host: string) => hosts.some((p) => matches(p, host));
  if (allow?.allowPrivate !== undefined) policy.allowPrivate = [...allow.allowPrivate];
  return policy;
}
