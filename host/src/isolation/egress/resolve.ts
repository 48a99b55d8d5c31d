// Name resolution for the egress gate, done once per hop by the host, and the `lookup` function
// that pins a connection to exactly the addresses that were checked (DNS-rebinding safe: the
// socket never asks DNS again).
// Invariants: every address a name resolves to must pass the address policy, or the request is
// refused (a mixed public/private answer is refused as a whole); the pinned lookup answers only
// for the host it was made for and only with checked addresses.

import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { canonicalAddress, type PrivateAllowance, refusalFor } from "./address.ts";
import type { Destination } from "./destination.ts";
import { fetchError } from "./errors.ts";
import type { ResolvedAddress, Resolver } from "./types.ts";

const MAX_ADDRESSES = 32;

export const systemResolver: Resolver = async (hostname) =>
  await dnsLookup(hostname, { all: true, order: "verbatim" });

export interface CheckedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves (or, for an IP literal, takes) the destination's addresses and checks each of them. */
export async function resolveChecked(
  dest: Destination,
  resolver: Resolver,
  allowance: PrivateAllowance,
): Promise<CheckedAddress[]> {
  const where = { host: dest.hostname, port: dest.port };
  let answers: ResolvedAddress[];
  if (dest.literal) {
    answers = [{ address: dest.hostname, family: dest.hostname.includes(":") ? 6 : 4 }];
  } else {
    try {
      answers = await resolver(dest.hostname);
    } catch (err) {
      throw fetchError(
        "AIRLOCK_FETCH_NETWORK",
        `${dest.hostname} did not resolve`,
        { ...where, reason: "dns" },
        err,
      );
    }
    if (!Array.isArray(answers) || answers.length === 0) {
      throw fetchError("AIRLOCK_FETCH_NETWORK", `${dest.hostname} resolved to no address`, {
        ...where,
        reason: "dns",
      });
    }
  }
  const checked: CheckedAddress[] = [];
  for (const answer of answers.slice(0, MAX_ADDRESSES)) {
    const raw = typeof answer?.address === "string" ? answer.address : "";
    const canon = canonicalAddress(raw);
    const refusal = canon === null ? "not-an-address" : refusalFor(canon.address, dest.hostname, allowance);
    if (refusal !== null || canon === null) {
      throw fetchError(
        "AIRLOCK_FETCH_ADDRESS_REFUSED",
        `${dest.hostname} resolves to a ${refusal ?? "not-an-address"} address and is refused`,
        { ...where, reason: refusal ?? "not-an-address" },
      );
    }
    checked.push(canon);
  }
  return checked;
}

/**
 * A `net.connect` lookup that answers only for `hostname`, only with `addresses`. Node calls it
 * with `{all: true}` when it races address families (autoSelectFamily) and without otherwise.
 */
export function pinnedLookup(hostname: string, addresses: readonly CheckedAddress[]): LookupFunction {
  return (host, options, callback) => {
    const wanted = host.toLowerCase().replace(/\.$/, "");
    const family =
      options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : Number(options.family ?? 0);
    const usable = addresses.filter((a) => family === 0 || a.family === family);
    if (wanted !== hostname || usable.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no checked address for ${host}`);
      err.code = "ENOTFOUND";
      queueMicrotask(() => callback(err, "", 0));
      return;
    }
    const first = usable[0] as CheckedAddress;
    if (options.all === true) {
      queueMicrotask(() =>
        callback(
          null,
          usable.map((a) => ({ address: a.address, family: a.family })),
        ),
      );
    } else {
      queueMicrotask(() => callback(null, first.address, first.family));
    }
  };
}
