import { hasCode } from "@airlock/sdk/errors";
import { describe, expect, it } from "vitest";
import {
  canonicalAddress,
  compileAllowance,
  defaultRefusal,
  ipv6Hextets,
  nameRefusal,
  refusalFor,
} from "./address.ts";

describe("defaultRefusal", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "shared-address-space"],
    ["100.127.255.255", "shared-address-space"],
    ["169.254.1.1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["168.63.129.16", "metadata"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["192.0.2.7", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fd00:ec2::254", "metadata"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:10.1.2.3", "private"],
    ["::127.0.0.1", "ipv4-compatible"],
    ["::7f00:1", "ipv4-compatible"],
    ["64:ff9b::127.0.0.1", "nat64-loopback"],
    ["64:ff9b::a00:1", "nat64-private"],
    ["64:ff9b::a9fe:a9fe", "nat64-metadata"],
    ["2002:7f00:1::1", "6to4-loopback"],
    ["2002:c0a8:101::", "6to4-private"],
    ["2001:db8::1", "documentation"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
    ["localhost", "not-an-address"],
    ["0177.0.0.1", "not-an-address"],
    ["", "not-an-address"],
  ])("refuses %s as %s", (address, reason) => {
    expect(defaultRefusal(address)).toBe(reason);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "100.128.0.1",
    "172.32.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("lets the public address %s through", (address) => {
    expect(defaultRefusal(address)).toBeNull();
  });
});

describe("canonical forms", () => {
  it("expands IPv6 with a compressed run and a dotted tail to 8 hextets", () => {
    expect(ipv6Hextets("[::ffff:1.2.3.4]")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(ipv6Hextets("2001:db8::")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Hextets("1.2.3.4")).toBeNull();
  });

  it("judges an IPv4-mapped address as the IPv4 address it reaches", () => {
    expect(canonicalAddress("::ffff:7f00:1")).toEqual({ address: "127.0.0.1", family: 4 });
    expect(canonicalAddress("0:0:0:0:0:0:0:1")).toEqual({ address: "0:0:0:0:0:0:0:1", family: 6 });
  });
});

describe("allowPrivate", () => {
  it("allows an address or a CIDR the operator lists, and nothing next to it", () => {
    const allow = compileAllowance(["127.0.0.1", "10.1.0.0/16", "fd00::/8"]);
    expect(refusalFor("127.0.0.1", "127.0.0.1", allow)).toBeNull();
    expect(refusalFor("::ffff:127.0.0.1", "x", allow)).toBeNull();
    expect(refusalFor("127.0.0.2", "127.0.0.2", allow)).toBe("loopback");
    expect(refusalFor("10.1.200.3", "db.test", allow)).toBeNull();
    expect(refusalFor("10.2.0.1", "db.test", allow)).toBe("private");
    expect(refusalFor("fd00::5", "db.test", allow)).toBeNull();
    expect(refusalFor("fd00:ec2::254", "db.test", allow)).toBe("metadata");
  });

  it("allows a listed host name to resolve privately, but never to metadata or unspecified", () => {
    const allow = compileAllowance(["db.internal", "Printer.LAN."]);
    expect(refusalFor("10.9.9.9", "db.internal", allow)).toBeNull();
    expect(refusalFor("192.168.0.5", "printer.lan", allow)).toBeNull();
    expect(refusalFor("10.9.9.9", "other.internal", allow)).toBe("private");
    expect(refusalFor("169.254.169.254", "db.internal", allow)).toBe("metadata");
    expect(refusalFor("0.0.0.0", "db.internal", allow)).toBe("unspecified");
  });

  it("allows a metadata address only by its exact address, never by a covering CIDR", () => {
    expect(refusalFor("169.254.169.254", "x", compileAllowance(["169.254.0.0/16"]))).toBe("metadata");
    expect(refusalFor("169.254.169.254", "x", compileAllowance(["169.254.169.254"]))).toBeNull();
  });

  it("never allows broadcast, multicast or unspecified, even under 0.0.0.0/0", () => {
    const allow = compileAllowance(["0.0.0.0/0"]);
    expect(refusalFor("10.0.0.1", "x", allow)).toBeNull();
    for (const a of ["0.0.0.0", "255.255.255.255", "224.0.0.1"])
      expect(refusalFor(a, a, allow)).not.toBeNull();
  });

  it.each(["127.0.0.1/", "127.0.0.1/33", "::1/129", "*.internal", "http://x", "1.2.3.4/8/1", "/8"])(
    "rejects the malformed entry %j with AIRLOCK_FETCH_POLICY_INVALID",
    (entry) => {
      let caught: unknown;
      try {
        compileAllowance([entry]);
      } catch (err) {
        caught = err;
      }
      expect(hasCode(caught, "AIRLOCK_FETCH_POLICY_INVALID")).toBe(true);
    },
  );
});

describe("nameRefusal", () => {
  it("refuses metadata and loopback names before any resolution", () => {
    const none = compileAllowance([]);
    expect(nameRefusal("metadata.google.internal", none)).toBe("metadata");
    expect(nameRefusal("localhost", none)).toBe("loopback");
    expect(nameRefusal("app.localhost", none)).toBe("loopback");
    expect(nameRefusal("api.test", none)).toBeNull();
    expect(nameRefusal("localhost", compileAllowance(["localhost"]))).toBeNull();
  });
});
