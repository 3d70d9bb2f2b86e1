/**
 * IP addresses and CIDR ranges, for REQLIX_TRUSTED_PROXIES (which peers may tell us the client's address in
 * X-Forwarded-For) and for the addresses a client ID metadata document may be fetched from. Pure code: the Worker bundle may import no `node:` module, so node:net's BlockList is
 * out. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, what a dual-stack socket reports) counts as IPv4.
 */

export interface IpAddress {
  version: 4 | 6;
  bits: bigint;
}

export interface IpRange extends IpAddress {
  prefix: number;
}

const width = (version: 4 | 6) => (version === 4 ? 32 : 128);

function parseIpv4(text: string): bigint | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  let bits = 0n;
  for (const part of m.slice(1)) {
    const n = Number(part);
    if (n > 255) return undefined;
    bits = (bits << 8n) | BigInt(n);
  }
  return bits;
}

function parseIpv6(text: string): bigint | undefined {
  let rest = text;
  const groups: number[] = [];
  // A dotted IPv4 tail (`::ffff:1.2.3.4`) stands for the last two groups.
  const tail = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(rest);
  if (tail) {
    const v4 = parseIpv4(tail[1] as string);
    if (v4 === undefined) return undefined;
    rest = `${rest.slice(0, tail.index)}:${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = rest.split("::");
  if (halves.length > 2) return undefined;
  const parse = (half: string) => (half === "" ? [] : half.split(":"));
  const head = parse(halves[0] as string);
  const back = halves.length === 2 ? parse(halves[1] as string) : [];
  const missing = 8 - head.length - back.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  for (const g of [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...back]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    groups.push(Number.parseInt(g, 16));
  }
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

const MAPPED_V4_PREFIX = 0xffffn << 32n;

/** Parses an IPv4 or IPv6 address (brackets and a zone id allowed); undefined when it is not one. */
export function parseIp(input: string): IpAddress | undefined {
  const text = input
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/%.*$/, "");
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { version: 4, bits: v4 };
  if (!text.includes(":")) return undefined;
  const v6 = parseIpv6(text);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === MAPPED_V4_PREFIX >> 32n) return { version: 4, bits: v6 & 0xffffffffn };
  return { version: 6, bits: v6 };
}

/** `10.0.0.0/8`, `2001:db8::/32` or a single address (a /32 or /128); undefined when malformed. */
export function parseIpRange(input: string): IpRange | undefined {
  const [addr, len, extra] = input.trim().split("/");
  if (addr === undefined || extra !== undefined) return undefined;
  const ip = parseIp(addr);
  if (!ip) return undefined;
  const max = width(ip.version);
  if (len === undefined) return { ...ip, prefix: max };
  if (!/^\d{1,3}$/.test(len) || Number(len) > max) return undefined;
  return { ...ip, prefix: Number(len) };
}

export function ipInRanges(ip: IpAddress, ranges: readonly IpRange[]): boolean {
  return ranges.some((r) => {
    if (r.version !== ip.version) return false;
    const shift = BigInt(width(r.version) - r.prefix);
    return ip.bits >> shift === r.bits >> shift;
  });
}

/** A canonical text form (dotted IPv4, eight lower-case IPv6 groups), so one client has one bucket key. */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) {
    return [24n, 16n, 8n, 0n].map((s) => String((ip.bits >> s) & 0xffn)).join(".");
  }
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((ip.bits >> s) & 0xffffn).toString(16));
  return groups.join(":");
}

/**
 * Addresses that are not on the public internet: unspecified, loopback, private, shared (CGNAT), link-local,
 * special-purpose, documentation, multicast and reserved; in IPv6 also the deprecated IPv4-compatible and
 * site-local blocks, unique-local, documentation, discard-only, ORCHID, local-use NAT64, and the tunnels
 * whose address carries another one (6to4 embeds any IPv4 address, Teredo an obfuscated one; both are
 * deprecated, so no document host needs them). A fetch made on a stranger's behalf must not reach any of
 * them (SSRF).
 */
const NON_PUBLIC_RANGES: readonly IpRange[] = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/3",
  "::/96",
  "64:ff9b:1::/48",
  "100::/64",
  "2001::/32",
  "2001:10::/28",
  "2001:20::/28",
  "2001:db8::/32",
  "2002::/16",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "ff00::/8",
].map((r) => parseIpRange(r) as IpRange);

const LOOPBACK_RANGES: readonly IpRange[] = ["127.0.0.0/8", "::1"].map((r) => parseIpRange(r) as IpRange);

const NAT64_PREFIX = parseIpRange("64:ff9b::/96") as IpRange;

/** The IPv4 address a NAT64 address (`64:ff9b::a00:5`) reaches, which is what the connection really meets. */
function throughNat64(ip: IpAddress): IpAddress {
  return ipInRanges(ip, [NAT64_PREFIX]) ? { version: 4, bits: ip.bits & 0xffffffffn } : ip;
}

/** Is this address outside the public internet? (An IPv4-mapped address is judged as its IPv4 address.) */
export function isNonPublicIp(ip: IpAddress): boolean {
  return ipInRanges(throughNat64(ip), NON_PUBLIC_RANGES);
}

export function isLoopbackIp(ip: IpAddress): boolean {
  return ipInRanges(throughNat64(ip), LOOPBACK_RANGES);
}
