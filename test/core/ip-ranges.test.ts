/** IP addresses and CIDR ranges for REQLIX_TRUSTED_PROXIES, and the setting's parsing. */
import { describe, expect, it } from "vitest";
import {
  formatIp,
  ipInRanges,
  isLoopbackIp,
  isNonPublicIp,
  parseIp,
  parseIpRange,
} from "../../src/core/ip-ranges.js";
import { parseServerConfig } from "../../src/core/server-config.js";

const ip = (text: string) => {
  const parsed = parseIp(text);
  if (!parsed) throw new Error(`${text} did not parse`);
  return parsed;
};
const ranges = (...texts: string[]) =>
  texts.map((t) => {
    const r = parseIpRange(t);
    if (!r) throw new Error(`${t} did not parse`);
    return r;
  });

describe("parseIp / formatIp", () => {
  it("reads IPv4, IPv6 (compressed, bracketed, with a zone) and maps ::ffff:a.b.c.d to IPv4", () => {
    expect(formatIp(ip("10.1.2.3"))).toBe("10.1.2.3");
    expect(formatIp(ip("::1"))).toBe("0:0:0:0:0:0:0:1");
    expect(formatIp(ip("[2001:DB8::8:800:200C:417A]"))).toBe("2001:db8:0:0:8:800:200c:417a");
    expect(formatIp(ip("fe80::1%eth0"))).toBe("fe80:0:0:0:0:0:0:1");
    expect(ip("::ffff:127.0.0.1")).toEqual(ip("127.0.0.1"));
    expect(formatIp(ip("1:2:3:4:5:6:7:8"))).toBe("1:2:3:4:5:6:7:8");
  });

  it("refuses what is not an address", () => {
    for (const bad of [
      "",
      "unknown",
      "256.0.0.1",
      "1.2.3",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      "::g",
      "1.2.3.4.5",
    ])
      expect(parseIp(bad), bad).toBeUndefined();
  });
});

describe("ranges", () => {
  it("matches by prefix, per family", () => {
    const trusted = ranges("10.0.0.0/8", "192.168.1.7", "2001:db8::/32");
    expect(ipInRanges(ip("10.255.0.1"), trusted)).toBe(true);
    expect(ipInRanges(ip("11.0.0.1"), trusted)).toBe(false);
    expect(ipInRanges(ip("192.168.1.7"), trusted)).toBe(true);
    expect(ipInRanges(ip("192.168.1.8"), trusted)).toBe(false);
    expect(ipInRanges(ip("2001:db8:ffff::1"), trusted)).toBe(true);
    expect(ipInRanges(ip("2001:db9::1"), trusted)).toBe(false);
    expect(ipInRanges(ip("::ffff:10.0.0.1"), trusted)).toBe(true);
    expect(ipInRanges(ip("1.2.3.4"), ranges("0.0.0.0/0"))).toBe(true);
  });

  it("refuses malformed ranges", () => {
    for (const bad of ["10.0.0.0/33", "::/129", "10.0.0.0/8/1", "10.0.0.0/x", "proxy"])
      expect(parseIpRange(bad), bad).toBeUndefined();
  });
});

describe("REQLIX_TRUSTED_PROXIES", () => {
  it("is empty by default and reads a comma-separated list", () => {
    expect(parseServerConfig({}).REQLIX_TRUSTED_PROXIES).toEqual([]);
    const cfg = parseServerConfig({ REQLIX_TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8 ,::1" });
    expect(cfg.REQLIX_TRUSTED_PROXIES).toEqual(ranges("127.0.0.1", "10.0.0.0/8", "::1"));
  });

  it("stops the start naming the variable and the bad entry", () => {
    expect(() => parseServerConfig({ REQLIX_TRUSTED_PROXIES: "10.0.0.0/8, nginx" })).toThrow(
      /REQLIX_TRUSTED_PROXIES "nginx" is not an IP address or CIDR range/,
    );
  });
});

describe("public and non-public addresses (client ID metadata document fetches)", () => {
  const ip = (text: string) => parseIp(text) as NonNullable<ReturnType<typeof parseIp>>;

  it("marks loopback, private, link-local, multicast, unspecified and their IPv6 and mapped forms", () => {
    for (const text of [
      "0.0.0.0",
      "127.0.0.1",
      "127.255.0.9",
      "10.0.0.5",
      "100.64.0.1",
      "169.254.169.254",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "198.18.0.1",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.5",
      "::127.0.0.1",
      "64:ff9b::a00:5",
      "fd00::1",
      "fc12::1",
      "fe80::1%eth0",
      "fec0::1",
      "ff02::1",
    ]) {
      expect(isNonPublicIp(ip(text)), text).toBe(true);
    }
  });

  it("marks the tunnelling, documentation and discard blocks that can hide a private address", () => {
    for (const text of [
      "2002:a00:1::1", // 6to4 of 10.0.0.1 (RFC 3056; deprecated by RFC 7526)
      "2002:7f00:1::", // 6to4 of 127.0.0.1
      "2002:808:808::1", // 6to4 of a public address: deprecated, never needed to fetch a document
      "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo (RFC 4380): the client address is obfuscated
      "2001:db8::1", // documentation (RFC 3849)
      "100::1", // discard-only (RFC 6666)
      "64:ff9b:1::a00:1", // local-use NAT64 (RFC 8215): a translator inside the network
      "2001:10::1", // ORCHID (RFC 4843)
      "2001:20::1", // ORCHIDv2 (RFC 7343)
      "192.0.2.1", // TEST-NET-1 (RFC 5737)
      "198.51.100.7", // TEST-NET-2
      "203.0.113.9", // TEST-NET-3
      "192.88.99.1", // the 6to4 relay anycast (RFC 7526)
    ]) {
      expect(isNonPublicIp(ip(text)), text).toBe(true);
    }
  });

  it("lets public addresses through, mapped and NAT64 ones included", () => {
    for (const text of [
      "93.184.216.34",
      "8.8.8.8",
      "172.32.0.1",
      "100.128.0.1",
      "2606:4700::1111",
      "2001:4860:4860::8888", // inside 2001::/23 but outside Teredo and ORCHID
      "2003::1",
    ]) {
      expect(isNonPublicIp(ip(text)), text).toBe(false);
    }
    expect(isNonPublicIp(ip("::ffff:8.8.8.8"))).toBe(false);
    expect(isNonPublicIp(ip("64:ff9b::808:808"))).toBe(false);
  });

  it("tells loopback apart from the other private ranges", () => {
    for (const text of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) {
      expect(isLoopbackIp(ip(text)), text).toBe(true);
    }
    for (const text of ["10.0.0.5", "::", "fe80::1", "0.0.0.0"])
      expect(isLoopbackIp(ip(text)), text).toBe(false);
  });
});
